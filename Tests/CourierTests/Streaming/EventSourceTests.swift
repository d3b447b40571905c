import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The waits an event source asked for, instead of sleeping them.
private final class Waits: Sendable {
    private let waits = Locked([Duration]())
    var all: [Duration] { waits.withLock { $0 } }

    func record(_ wait: Duration) async throws {
        try Task.checkCancellation()
        waits.withLock { $0.append(wait) }
    }
}

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

    /// The source on `path` with its waits recorded instead of slept, and its jitter fixed.
    private func source(
        _ client: APIClient, _ path: Path, options: EventSourceOptions = EventSourceOptions(), jitter: Double = 1,
        waits: Waits
    ) -> EventSource {
        var source = client.events(Request<Data>(path: path), options: options)
        source.sleep = { try await waits.record($0) }
        source.jitter = { jitter }
        return source
    }

    @Test(
        "connections that fail in a row back off from 1 s, doubling, with jitter, and give up after the limit",
        arguments: [(1.0, [1.0, 2, 4]), (0.0, [0.5, 1, 2])])
    func backoff(jitter: Double, expected: [Double]) async throws {
        let stub = StubTransport().on(.get, "v1/feed", .status(.serviceUnavailable))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let waits = Waits()
        // No default retry to wait at least (the minimum, 500 ms, stays): the backoff alone.
        let options = EventSourceOptions(defaultRetry: .zero, maximumConsecutiveFailures: 3)
        let error = await #expect(throws: APIError.self) {
            for try await _ in source(client, "feed", options: options, jitter: jitter, waits: waits) {}
        }
        #expect(error?.kind == .unacceptableStatus(.serviceUnavailable))
        #expect(stub.requests.count == 4)
        #expect(waits.all == expected.map { .milliseconds(Int($0 * 1000)) })
    }

    @Test("the backoff stops doubling at maximumRetry, and a Retry-After is honoured up to it")
    func backoffCap() async throws {
        let calls = Counter()
        let stub = StubTransport().on(.get, "v1/feed") { _ in
            calls.increment() == 3
                ? .response(status: .serviceUnavailable, headers: ["Retry-After": "3600"], body: Data())
                : .status(.serviceUnavailable)
        }
        let client = APIClient(baseURL: baseURL, transport: stub)
        let waits = Waits()
        let options = EventSourceOptions(defaultRetry: .zero, maximumRetry: .seconds(5), maximumConsecutiveFailures: 7)
        _ = await #expect(throws: APIError.self) {
            for try await _ in source(client, "feed", options: options, waits: waits) {}
        }
        #expect(waits.all == [1, 2, 5, 5, 5, 5, 5].map { .seconds($0) })
    }

    @Test("a Retry-After given as an HTTP date is honoured as a wait, like one in seconds")
    func retryAfterDate() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // The source reads the date against a clock the test holds still.
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let later = formatter.string(from: now.addingTimeInterval(30))
        let stub = StubTransport().on(
            .get, "v1/feed", .response(status: .serviceUnavailable, headers: ["Retry-After": later], body: Data()))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let waits = Waits()
        var events = source(client, "feed", options: .init(maximumConsecutiveFailures: 1), waits: waits)
        events.now = { now }
        _ = await #expect(throws: APIError.self) {
            for try await _ in events {}
        }
        #expect(waits.all.first == .seconds(30))
    }

    @Test("the retry middleware does not send a source's connections again: the source's own backoff decides")
    func noRetryMiddlewareBursts() async throws {
        let stub = StubTransport().on(
            .get, "v1/feed", .response(status: .serviceUnavailable, headers: ["Retry-After": "0"], body: Data()))
        let client = APIClient(
            baseURL: baseURL, transport: stub, middlewares: [RetryMiddleware(policy: .init(maximumAttempts: 3))])
        _ = await #expect(throws: APIError.self) {
            for try await _ in source(client, "feed", options: .init(maximumConsecutiveFailures: 2), waits: Waits()) {}
        }
        // Three connections, each sent once (before: three times each, at once).
        #expect(stub.requests.count == 3)
    }

    @Test("retry: 0 waits the minimum between connections that bring events, and cannot shorten the backoff")
    func retryZero() async throws {
        let calls = Counter()
        let stub = StubTransport().on(.get, "v1/feed") { _ in
            let call = calls.increment()
            if call > 6 { return .status(.noContent) }
            // Three connections with an event each, then three that end at once without one.
            let body = call <= 3 ? "retry: 0\ndata: tick\n\n" : "retry: 0\n\n"
            return .response(headers: Self.eventStream, body: Data(body.utf8))
        }
        let client = APIClient(baseURL: baseURL, transport: stub)
        let waits = Waits()
        var events = 0
        for try await _ in source(client, "feed", waits: waits) { events += 1 }
        #expect(events == 3)
        #expect(waits.all == [500, 500, 500, 1000, 2000, 4000].map { .milliseconds($0) })
    }

    @Test(
        "the wait: the server's retry within the bounds after events; after failures a backoff it cannot shorten",
        arguments: [
            // failures, server retry (ms), Retry-After (s), jitter → wait (ms)
            (0, nil, nil, 1.0, 3000), (0, 0, nil, 1, 500), (0, 200, nil, 1, 500), (0, 1500, nil, 1, 1500),
            (0, 3_600_000, nil, 1, 60000), (1, 0, nil, 1, 1000), (1, 0, nil, 0, 500), (2, nil, nil, 1, 3000),
            (2, nil, nil, 0.5, 3000), (3, nil, nil, 1, 4000), (3, 10000, nil, 0, 10000), (1, nil, 20, 1, 20000),
            (1, nil, 7200, 1, 60000), (7, nil, nil, 0, 30000), (7, nil, nil, 1, 60000), (1_000, nil, nil, 1, 60000),
            (Int.max, 0, nil, 1, 60000),
        ] as [(Int, Int?, Int?, Double, Int)])
    func waitRule(failures: Int, serverRetry: Int?, retryAfter: Int?, jitter: Double, expected: Int) {
        let wait = EventSourceOptions().wait(
            afterFailures: failures, serverRetry: serverRetry.map { .milliseconds($0) },
            retryAfter: retryAfter.map { .seconds($0) }, jitter: jitter)
        #expect(wait == .milliseconds(expected))
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
        let options = EventSourceOptions(defaultRetry: .zero, maximumConsecutiveFailures: 2)
        var data: [String] = []
        let waits = Waits()
        let error = await #expect(throws: APIError.self) {
            for try await event in source(client, "feed", options: options, waits: waits) {
                data.append(event.data)
            }
        }
        #expect(data == ["one"])
        #expect(error?.kind == .transport(.connectionLost))
        // Two empty, one with an event, then three empty: the third in a row is one too many.
        #expect(stub.requests.count == 6)
        #expect(waits.all == [1000, 2000, 500, 1000, 2000].map { .milliseconds($0) })
    }

    @Test("a connection cut mid-event: the next one asks from the last whole event and carries nothing over")
    func cutMidEvent() async throws {
        let calls = Counter()
        let stub = StubTransport().on(.get, "v1/feed") { _ in
            switch calls.increment() {
            case 1:
                .response(
                    headers: Self.eventStream, body: Data("id: 1\ndata: a\n\nevent: special\nid: 2\ndata: cut".utf8))
            case 2: .response(headers: Self.eventStream, body: Data("data: b\n\n".utf8))
            default: .status(.noContent)
            }
        }
        let client = APIClient(baseURL: baseURL, transport: stub)
        var events: [ServerSentEvent] = []
        for try await event in source(client, "feed", waits: Waits()) { events.append(event) }
        #expect(events == [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")])
        #expect(stub.requests.map { $0.headers["Last-Event-ID"] } == [nil, "1", "1"])
    }

    @Test("cancelling the reading task ends the source while it waits to reconnect", .timeLimit(.minutes(2)))
    func cancelWhileWaiting() async throws {
        let stub = StubTransport().on(
            .get, "v1/feed", .response(headers: Self.eventStream, body: Data("data: x\n\n".utf8)))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let reader = Task {
            var count = 0
            for try await _ in client.events(Request<Data>(path: "feed"), options: .init(defaultRetry: .seconds(600))) {
                count += 1
            }
            return count
        }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        reader.cancel()
        let result = await reader.result
        // Not the 600 s retry: the wait ends when cancelled (how fast is LatencyTests' business).
        #expect(ContinuousClock.now - start < .seconds(45))
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
