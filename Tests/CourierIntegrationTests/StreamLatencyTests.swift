import Courier
import Foundation
import Testing

/// How fast a stream lets go: run one test at a time (the suite name ends in LatencyTests), so
/// that no other test's load is measured.
@Suite(
    "Stream latency", .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct StreamLatencyTests {
    private struct Connection: Decodable {
        let sent: Int
        let closed: Bool
    }

    private func connections(_ key: String) async throws -> [Connection] {
        let probe = TransportKind.curl.client(LocalServers.faults)
        return try await probe.send(.get("sse/log", query: ["key": key], as: [Connection].self))
    }

    @Test("breaking out of a loop over events closes the connection at once", arguments: TransportKind.allCases)
    func leavingTheLoop(kind: TransportKind) async throws {
        let key = "ticks-\(kind)-\(UUID().uuidString)"
        let client = kind.client(LocalServers.faults)
        var seen = 0
        for try await event in try await client.stream(
            Request(path: "sse/ticks", query: ["key": key, "pace": "0.02"], as: Data.self)
        ).serverSentEvents() {
            #expect(event.data == "tick \(seen)")
            seen += 1
            if seen == 5 { break }
        }
        let left = ContinuousClock.now
        var closed = false
        while !closed, ContinuousClock.now - left < .seconds(3) {
            closed = try await connections(key).first?.closed == true
            if !closed { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(closed, "the server still had the connection 3 s after the loop was left")
        #expect(ContinuousClock.now - left < .seconds(1))
    }

    @Test("cancelling the reading task ends the stream with CancellationError", arguments: TransportKind.allCases)
    func cancellation(kind: TransportKind) async throws {
        let key = "cancel-\(kind)-\(UUID().uuidString)"
        let client = kind.client(LocalServers.faults)
        let stream = try await client.stream(
            Request(path: "sse/ticks", query: ["key": key, "pace": "0.02"], as: Data.self))
        let reader = Task {
            var count = 0
            for try await _ in stream.serverSentEvents() { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        reader.cancel()
        let result = await reader.result
        #expect(ContinuousClock.now - start < .milliseconds(300))
        #expect(throws: CancellationError.self) { try result.get() }
    }

}
