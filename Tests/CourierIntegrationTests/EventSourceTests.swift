import Courier
import Foundation
import Testing

/// The reconnecting event source against a scripted server (`scripts/servers/sessions.py`): a
/// dropped connection, a clean end, retry changes, ids carried as Last-Event-ID, a 503 backed off,
/// and a 204 that ends it.
@Suite(
    "Event source", .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct EventSourceTests {
    private struct Connection: Decodable {
        let lastEventID: String?
        let at: Double

        enum CodingKeys: String, CodingKey {
            case lastEventID = "last_event_id"
            case at
        }
    }

    @Test(
        "drops, clean ends, a 503 and a 204: every event once, in order, with the server's retry",
        arguments: TransportKind.allCases)
    func script(kind: TransportKind) async throws {
        let key = "script-\(kind)-\(UUID().uuidString)"
        let client = kind.client(LocalServers.faults)
        var events: [ServerSentEvent] = []
        // The server's retry below the default minimum (500 ms), allowed here to keep the test short.
        let options = EventSourceOptions(minimumRetry: .milliseconds(50))
        for try await event in client.events(Request<Data>(path: "sse/script", query: ["key": key]), options: options) {
            events.append(event)
        }

        #expect(
            events == [
                ServerSentEvent(data: "one", id: "1"),
                ServerSentEvent(data: "two\nlines", id: "2"),
                ServerSentEvent(type: "update", data: "three", id: "3"),
                ServerSentEvent(data: "four", id: "4"),
            ])
        let probe = TransportKind.curl.client(LocalServers.faults)
        let connections = try await probe.send(.get("sse/log", query: ["key": key], as: [Connection].self))
        // The first connection dropped after reading "id: 3x" of an event it never finished: the
        // reconnection asks from 2, the last event the client got.
        #expect(connections.map(\.lastEventID) == [nil, "2", "3", "3", "4"])
        guard connections.count == 5 else { return }
        let gaps = zip(connections.dropFirst(), connections).map { $0.at - $1.at }
        // retry: 100 after the drop; retry: 300 after the clean end; the 503 backs off from 1 s with
        // jitter (half to all of it), never below the retry; then 300 ms again after the clean end.
        // (No upper bounds: on a loaded machine any wait may run long; LatencyTests time waits.)
        #expect(gaps[0] >= 0.09, "\(gaps)")
        #expect(gaps[1] >= 0.29, "\(gaps)")
        #expect(gaps[2] >= 0.49, "\(gaps)")
        #expect(gaps[3] >= 0.29, "\(gaps)")
    }

    /// How many times the source connected to `path` in the `window` after its first connection, by
    /// the server's clock, with default options (a loaded machine may be slow to make the first).
    private func connections(_ kind: TransportKind, _ path: Path, query: Query = [:], in window: Duration) async throws
        -> Int
    {
        let key = "storm-\(kind)-\(UUID().uuidString)"
        let client = kind.client(LocalServers.faults)
        let asked = query + ["key": key]
        let reader = Task {
            for try await _ in client.events(Request<Data>(path: path, query: asked)) {}
        }
        defer { reader.cancel() }
        let probe = TransportKind.curl.client(LocalServers.faults)
        let log = { try await probe.send(.get("sse/log", query: ["key": key], as: [Connection].self)) }
        let waitStart = ContinuousClock.now
        while try await log().isEmpty, ContinuousClock.now - waitStart < .seconds(45) {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: window)
        reader.cancel()
        _ = await reader.result
        let seen = try await log()
        guard let first = seen.first?.at else { return 0 }
        let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        return seen.filter { $0.at - first <= seconds }.count
    }

    @Test(
        "retry: 0 and an instant close, with or without events, or a 503 to everything: a handful of connections, not a storm",
        arguments: TransportKind.allCases)
    func noStorm(kind: TransportKind) async throws {
        // Before: 1,087 to 1,400 connections in 3 s with retry: 0, and as many against a 503 after a
        // retry: 0. Now at most one per 500 ms with events (7 in 3 s), and a backoff from 1 s without
        // (4); the counts are upper bounds, which a loaded machine only lowers.
        let withEvents = try await connections(kind, "sse/storm", query: ["events": "1"], in: .seconds(3))
        let withoutEvents = try await connections(kind, "sse/storm", in: .seconds(3))
        let busy = try await connections(kind, "sse/busy", in: .seconds(3))
        let busyAfterRetryZero = try await connections(kind, "sse/busy", query: ["first": "retry0"], in: .seconds(3))
        #expect((1...7).contains(withEvents), "\(withEvents) connections in 3 s with an event each")
        #expect((1...4).contains(withoutEvents), "\(withoutEvents) connections in 3 s without events")
        #expect((1...2).contains(busy), "\(busy) connections in 3 s to a server answering 503")
        #expect(
            (1...4).contains(busyAfterRetryZero),
            "\(busyAfterRetryZero) connections in 3 s to a server answering 503 after retry: 0")
    }

    @Test("a status that is not retryable ends the source with the server's message", arguments: TransportKind.allCases)
    func notRetryable(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.faults)
        let error = await #expect(throws: APIError.self) {
            for try await _ in client.events(Request<Data>(path: "sse/status/404")) {}
        }
        #expect(error?.kind == .unacceptableStatus(.notFound))
        #expect(error?.errorBody(as: ServerMessage.self)?.serverMessage == "status 404")
    }

    @Test("a retryable status gives up after the allowed failures in a row", arguments: TransportKind.allCases)
    func givesUp(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.faults)
        let options = EventSourceOptions(
            defaultRetry: .zero, minimumRetry: .milliseconds(20), initialBackoff: .milliseconds(20),
            maximumConsecutiveFailures: 2)
        let error = await #expect(throws: APIError.self) {
            for try await _ in client.events(Request<Data>(path: "sse/status/503"), options: options) {}
        }
        #expect(error?.kind == .unacceptableStatus(.serviceUnavailable))
    }

    @Test("a body that is not an event stream ends the source", arguments: TransportKind.allCases)
    func wrongType(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.faults)
        let error = await #expect(throws: APIError.self) {
            for try await _ in client.events(Request<Data>(path: "ok")) {}
        }
        #expect(error?.kind == .unacceptableContentType("application/json"))
    }
}
