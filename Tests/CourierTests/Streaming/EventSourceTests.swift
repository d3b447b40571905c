import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Event source over the stub transport")
struct EventSourceStubTests {
    private static let eventStream: HTTPHeaders = [.contentType: "text/event-stream; charset=utf-8"]

    @Test("each connection asks for an event stream, and a reconnection sends the last event ID")
    func headers() async throws {
        let calls = Counter()
        let stub = StubTransport().on(.get, "v1/feed") { _ in
            switch calls.increment() {
            case 1: .response(headers: Self.eventStream, body: Data("id: 41\ndata: a\n\nretry: 10\n\n".utf8))
            case 2: .response(headers: Self.eventStream, body: Data("id: 42\ndata: b\n\n".utf8))
            default: .status(.noContent)
            }
        }
        let client = APIClient(baseURL: baseURL, transport: stub)
        var data: [String] = []
        for try await event in client.events(Request<Data>(path: "feed")) { data.append(event.data) }

        #expect(data == ["a", "b"])
        let requests = stub.requests
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.headers[.accept] == "text/event-stream" })
        #expect(requests.allSatisfy { $0.headers["Cache-Control"] == "no-cache" })
        #expect(requests.map { $0.headers["Last-Event-ID"] } == [nil, "41", "42"])
    }

    @Test("connections that fail in a row back off, doubling with jitter, and give up after the limit")
    func backoff() async throws {
        let stub = StubTransport().on(.get, "v1/feed", .status(.serviceUnavailable))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let options = EventSourceOptions(defaultRetry: .milliseconds(40), maximumConsecutiveFailures: 3)
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            for try await _ in client.events(Request<Data>(path: "feed"), options: options) {}
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.kind == .unacceptableStatus(.serviceUnavailable))
        #expect(stub.requests.count == 4)
        // Waits of 40, 80 and 160 ms, each drawn from half to all of it: 140 to 280 ms in all.
        #expect(elapsed >= .milliseconds(135), "\(elapsed)")
        #expect(elapsed < .seconds(10), "\(elapsed)")
    }

    @Test("a proxy's 407 to CONNECT ends the source at once: reconnecting would meet the same refusal")
    func proxyRefusedTunnel() async throws {
        let refusal = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "CONNECT tunnel failed, response 407"])
        let stub = StubTransport().on(.get, "v1/feed", .failure(refusal))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let options = EventSourceOptions(defaultRetry: .milliseconds(1), maximumConsecutiveFailures: 3)

        let error = await #expect(throws: APIError.self) {
            for try await _ in client.events(Request<Data>(path: "feed"), options: options) {}
        }

        #expect(error?.kind == .transport(.proxyAuthenticationRequired))
        #expect(stub.requests.count == 1)
    }

    @Test("a connection that brings no event counts as a failure; one that does starts the count again")
    func failureCount() async throws {
        let calls = Counter()
        let stub = StubTransport().on(.get, "v1/feed") { _ in
            let call = calls.increment()
            if call == 3 { return .response(headers: Self.eventStream, body: Data("data: one\n\n".utf8)) }
            return .response(headers: Self.eventStream, body: Data(": only a comment\n\n".utf8))
        }
        let client = APIClient(baseURL: baseURL, transport: stub)
        let options = EventSourceOptions(defaultRetry: .milliseconds(1), maximumConsecutiveFailures: 2)
        var data: [String] = []
        let error = await #expect(throws: APIError.self) {
            for try await event in client.events(Request<Data>(path: "feed"), options: options) {
                data.append(event.data)
            }
        }
        #expect(data == ["one"])
        #expect(error?.kind == .transport(.connectionLost))
        // Two empty, one with an event, then three empty: the third in a row is one too many.
        #expect(stub.requests.count == 6)
    }

    @Test("cancelling the reading task ends the source while it waits to reconnect")
    func cancelWhileWaiting() async throws {
        let stub = StubTransport().on(
            .get, "v1/feed", .response(headers: Self.eventStream, body: Data("data: x\n\n".utf8)))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let reader = Task {
            var count = 0
            for try await _ in client.events(Request<Data>(path: "feed"), options: .init(defaultRetry: .seconds(30))) {
                count += 1
            }
            return count
        }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        reader.cancel()
        let result = await reader.result
        // Not the 30 s retry: the wait ends when cancelled.
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
