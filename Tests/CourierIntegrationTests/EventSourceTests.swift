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
        for try await event in client.events(Request<Data>(path: "sse/script", query: ["key": key])) {
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
        #expect(connections.map(\.lastEventID) == [nil, "2", "3", "3", "4"])
        guard connections.count == 5 else { return }
        let gaps = zip(connections.dropFirst(), connections).map { $0.at - $1.at }
        // retry: 100 after the drop; retry: 300 after the clean end; the 503 backs off with jitter
        // (half to all of 300 ms); then 300 ms again after the clean end.
        #expect(gaps[0] >= 0.09 && gaps[0] < 5, "\(gaps)")
        #expect(gaps[1] >= 0.29 && gaps[1] < 5, "\(gaps)")
        #expect(gaps[2] >= 0.14 && gaps[2] < 5, "\(gaps)")
        #expect(gaps[3] >= 0.29 && gaps[3] < 5, "\(gaps)")
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
        let options = EventSourceOptions(defaultRetry: .milliseconds(20), maximumConsecutiveFailures: 2)
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            for try await _ in client.events(Request<Data>(path: "sse/status/503"), options: options) {}
        }
        #expect(error?.kind == .unacceptableStatus(.serviceUnavailable))
        #expect(ContinuousClock.now - start < .seconds(10))
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
