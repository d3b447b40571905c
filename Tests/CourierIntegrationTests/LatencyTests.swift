import Courier
import Foundation
import Testing

/// The wall-clock latency assertions against httpbin; `scripts/test` runs them on their own, one
/// at a time, after the rest (see `CourierTests.LatencyTests`).
@Suite(
    "Latency against httpbin", .serialized,
    .enabled(if: LocalServers.httpbin != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct LatencyTests {

    @Test("/delay/5 with a 0.5 s deadline fails as timed out within 1.5 s", arguments: TransportKind.allCases)
    func deadline(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        let start = ContinuousClock.now

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(path: "delay/5", timeout: .milliseconds(500), as: Data.self))
            }
        )

        #expect(error.kind == .transport(.deadlineExceeded))
        #expect(ContinuousClock.now - start < .milliseconds(1500))
    }

    @Test("cancelling /delay/10 surfaces CancellationError within 100 ms", arguments: TransportKind.allCases)
    func cancellation(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        let task = Task { try await client.send(.get("delay/10", as: Data.self)) }
        try await Task.sleep(for: .milliseconds(300))

        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .milliseconds(100))
    }

    @Test("a dripping body cannot outlive the deadline", arguments: TransportKind.allCases)
    func drippingBody(transport: TransportKind) async throws {
        let client = transport.client(LocalServers.httpbin)
        let start = ContinuousClock.now
        let query: Query = ["duration": "5", "numbytes": "10"]

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(path: "drip", query: query, timeout: .milliseconds(1500), as: Data.self))
            }
        )

        #expect(error.kind == .transport(.deadlineExceeded))
        #expect(ContinuousClock.now - start < .milliseconds(2500))
    }
}

@Suite(
    "CurlTransport idle timeout",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct CurlLatencyTests {
    @Test("a stalled body fails as timed out after the 0.3 s idle timeout, well before the deadline")
    func idle() async throws {
        let transport = CurlTransport(configuration: .init(idleTimeout: .milliseconds(300)))
        let client = APIClient(baseURL: LocalServers.faults ?? URL(string: "http://127.0.0.1:9")!, transport: transport)
        let start = ContinuousClock.now

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(path: "stall", timeout: .seconds(5), as: Data.self))
            })

        #expect(error.kind == .transport(.timedOut))
        #expect(ContinuousClock.now - start < .milliseconds(1000))
    }
}
