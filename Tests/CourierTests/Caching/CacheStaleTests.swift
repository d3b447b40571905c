import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A door requests wait at until the test opens it; it counts who arrived and who was cancelled.
private final class StaleGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var arrived = 0
        var cancelled = 0
    }
    private let state = Locked(State())
    private let arrivals: AsyncStream<Void>
    private let arrival: AsyncStream<Void>.Continuation
    private let cancellations: AsyncStream<Void>
    private let cancellation: AsyncStream<Void>.Continuation

    init() {
        (arrivals, arrival) = AsyncStream.makeStream()
        (cancellations, cancellation) = AsyncStream.makeStream()
    }

    var arrived: Int { state.withLock { $0.arrived } }

    /// Waits until the gate is open; throws `CancellationError` if the task is cancelled first.
    func pass() async throws {
        state.withLock { $0.arrived += 1 }
        arrival.yield()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resume { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.cancelled += 1
                defer { state.waiting = [] }
                return state.waiting
            }
            cancellation.yield()
            for continuation in waiting { continuation.resume() }
        }
        try Task.checkCancellation()
    }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits for `count` arrivals in all.
    func waitForArrivals(_ count: Int) async {
        var iterator = arrivals.makeAsyncIterator()
        var seen = 0
        while seen < count, await iterator.next() != nil { seen += 1 }
    }

    /// Waits for the first cancellation.
    func waitForCancellation() async {
        var iterator = cancellations.makeAsyncIterator()
        _ = await iterator.next()
    }
}

/// A value the caller binds around its call, to see whether background work inherits it.
private enum CallerMarker {
    @TaskLocal static var value: String?
}

/// Records, per request, the `CallerMarker` the chain below the cache sees.
private struct MarkerProbe: Middleware {
    let seen = Locked<[String?]>([])

    func intercept(
        _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        seen.withLock { $0.append(CallerMarker.value) }
        return try await next(request)
    }
}

/// RFC 5861: `stale-while-revalidate` (a stale response served at once while one bounded,
/// deduplicated background revalidation refreshes it) and `stale-if-error`.
@Suite("Response cache: stale-while-revalidate and stale-if-error (RFC 5861)")
struct CacheStaleTests {
    private let clock = CacheTestClock()

    /// A transport answering `v1`, `v2`, … with `headers`; every request after the first waits at `gate`.
    private func transport(_ headers: HTTPHeaders, gate: StaleGate? = nil) -> StubTransport {
        let count = Locked(0)
        return StubTransport().on(.get, "*") { _ in
            let n = count.withLock {
                $0 += 1
                return $0
            }
            if n > 1, let gate { try await gate.pass() }
            return .text("v\(n)", headers: headers)
        }
    }

    private static let swr: HTTPHeaders = [.cacheControl: "max-age=10, stale-while-revalidate=30", .eTag: "\"e\""]

    @Test("within stale-while-revalidate a stale hit is served at once and refreshed in the background (item 10)")
    func servesStaleAndRefreshes() async throws {
        let transport = transport(Self.swr)
        let (client, middleware) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        let stale = try await client.response(for: .get("a", as: String.self))
        await middleware.waitForBackgroundRevalidations()
        let refreshed = try await client.response(for: .get("a", as: String.self))
        clock.advance(45)
        let beyond = try await client.send(.get("a", as: String.self))

        #expect(stale.value == "v1" && stale.response.headers["Age"] == "15")
        #expect(refreshed.value == "v2" && refreshed.attempts == 0)
        #expect(beyond == "v3")
        #expect(transport.requests.map { $0.headers[.ifNoneMatch] } == [nil, "\"e\"", "\"e\""])
    }

    @Test(
        "only-if-cached within stale-while-revalidate never reaches the network, not even in the background",
        arguments: [false, true])
    func onlyIfCachedWithinWindow(usesMode: Bool) async throws {
        let transport = transport(Self.swr)
        let (client, middleware) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        let request =
            usesMode
            ? Request.get("a", as: String.self).policies(cache: .onlyIfCached)
            : Request.get("a", headers: [.cacheControl: "only-if-cached"], as: String.self)
        var status: HTTPStatus?
        do {
            status = try await client.response(for: request).response.status
        } catch let error as APIError {
            status = error.response?.status
        }
        let allowed = try await client.send(
            .get("a", headers: [.cacheControl: "only-if-cached, max-stale=10"], as: String.self))
        await middleware.waitForBackgroundRevalidations()

        // The mode serves what is stored, as Fetch does; the directive answers 504 (no max-stale).
        #expect(status == (usesMode ? .ok : .gatewayTimeout))
        #expect(allowed == "v1")
        #expect(transport.requests.count == 1 && middleware.backgroundRevalidationCount == 0)
    }

    @Test("a background revalidation answered 503 keeps the stale response for the next hit")
    func failedRevalidationKeepsEntry() async throws {
        let transport = StubTransport().on(
            .get, "*", .text("v1", headers: Self.swr), .status(.serviceUnavailable), .text("v3", headers: Self.swr))
        let (client, middleware) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        let first = try await client.response(for: .get("a", as: String.self))
        await middleware.waitForBackgroundRevalidations()
        let second = try await client.response(for: .get("a", as: String.self))
        await middleware.waitForBackgroundRevalidations()
        let third = try await client.response(for: .get("a", as: String.self))

        #expect([first.value, second.value, third.value] == ["v1", "v1", "v3"])
        #expect([first.attempts, second.attempts, third.attempts] == [Int](repeating: 0, count: 3))
    }

    /// Before returning the cache's answer, waits until the background revalidation it started has ended.
    private struct AwaitsBackground: Middleware {
        let cache: ResponseCacheMiddleware

        func intercept(
            _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            let response = try await next(request)
            await cache.waitForBackgroundRevalidations()
            return response
        }
    }

    @Test("a background revalidation's exchange does not count in the metrics of the call that started it")
    func backgroundNotInCallerMetrics() async throws {
        let transport = transport(Self.swr)
        let middleware = ResponseCacheMiddleware(now: { [clock] in clock.date })
        let client = APIClient(
            baseURL: baseURL, transport: transport, middlewares: [AwaitsBackground(cache: middleware), middleware])
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        let stale = try await client.response(for: .get("a", as: String.self))

        #expect(stale.value == "v1" && transport.requests.count == 2)
        #expect(stale.attempts == 0 && stale.metrics.attempts == 0)
    }

    @Test("a storm of stale hits on one URL starts one background revalidation (item 10)")
    func deduplicated() async throws {
        let gate = StaleGate()
        let transport = transport(Self.swr, gate: gate)
        let (client, middleware) = cachingClient(transport, clock: clock, backgroundLimit: 8)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await client.send(.get("a", as: String.self)) } }
            for try await body in group { #expect(body == "v1") }
        }
        await gate.waitForArrivals(1)
        gate.open()
        await middleware.waitForBackgroundRevalidations()

        #expect(transport.requests.count == 2)
        #expect(middleware.backgroundRevalidationCount == 1)
    }

    @Test("background revalidations are bounded: beyond the limit a stale hit is served but not refreshed (item 10)")
    func bounded() async throws {
        let gate = StaleGate()
        let transport = transport(Self.swr, gate: gate)
        let (client, middleware) = cachingClient(transport, clock: clock, backgroundLimit: 2)
        // Each URL's first response, fetched without the gate.
        gate.open()
        for index in 0..<10 { _ = try await client.send(.get("a", query: ["n": "\(index)"], as: String.self)) }
        let closed = StaleGate()
        let blocked = StubTransport().on(.get, "*") { _ in
            try await closed.pass()
            return .text("late", headers: Self.swr)
        }
        let (storm, stormMiddleware) = cachingClient(blocked, clock: clock, cache: middleware.cache, backgroundLimit: 2)
        clock.advance(15)
        for index in 0..<10 { _ = try await storm.send(.get("a", query: ["n": "\(index)"], as: String.self)) }
        await closed.waitForArrivals(2)

        #expect(stormMiddleware.backgroundRevalidationCount == 2)
        #expect(closed.arrived == 2)
        closed.open()
        await stormMiddleware.waitForBackgroundRevalidations()
    }

    /// Starts a background revalidation that waits at `gate`, through a client that is released on return.
    private func startRevalidationThenReleaseClient(gate: StaleGate) async throws {
        let transport = transport(Self.swr, gate: gate)
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        _ = try await client.send(.get("a", as: String.self))
        await gate.waitForArrivals(1)
    }

    @Test(
        "a background revalidation is cancelled when the client holding the middleware is released (item 10)",
        .timeLimit(.minutes(1)))
    func cancelledWithClient() async throws {
        let gate = StaleGate()
        try await startRevalidationThenReleaseClient(gate: gate)
        // Message-based: returns when the transport sees the cancellation (the test's time limit bounds it).
        await gate.waitForCancellation()
    }

    @Test("a background revalidation sees none of the caller's task-local values (item 10)")
    func detachedFromCaller() async throws {
        let probe = MarkerProbe()
        let transport = transport(Self.swr)
        let (client, middleware) = cachingClient(transport, clock: clock, extra: [probe])
        try await CallerMarker.$value.withValue("caller") {
            _ = try await client.send(.get("a", as: String.self))
            clock.advance(15)
            _ = try await client.send(.get("a", as: String.self))
        }
        await middleware.waitForBackgroundRevalidations()
        #expect(probe.seen.withLock { $0 } == ["caller", nil])
    }

    @Test("stale-if-error: a 5xx or a failed connection within the window is answered by the stale response (item 10)")
    func staleIfError() async throws {
        let count = Locked(0)
        let transport = StubTransport().on(.get, "*") { _ in
            switch count.withLock({
                $0 += 1
                return $0
            }) {
            case 1: return .text("v1", headers: [.cacheControl: "max-age=10, stale-if-error=60"])
            case 2: return .status(.serviceUnavailable)
            case 3: return .failure(URLError(.cannotConnectToHost))
            default: return .status(.internalServerError)
            }
        }
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(20)
        let onStatus = try await client.response(for: .get("a", as: String.self))
        let onFailure = try await client.send(.get("a", as: String.self))
        clock.advance(60)
        await #expect(throws: APIError.self) { try await client.send(.get("a", as: String.self)) }

        #expect(onStatus.value == "v1" && onStatus.response.headers["Age"] == "20")
        #expect(onFailure == "v1")
    }

    @Test("stale-if-error from the request; must-revalidate forbids it (item 10)")
    func staleIfErrorRequestAndMustRevalidate() async throws {
        for (responseControl, expectsStale) in [("max-age=10", true), ("max-age=10, must-revalidate", false)] {
            let transport = StubTransport().on(
                .get, "*", .text("v1", headers: [.cacheControl: responseControl]), .status(.badGateway))
            let (client, _) = cachingClient(transport, clock: clock)
            _ = try await client.send(.get("a", as: String.self))
            clock.advance(20)
            let request = Request.get("a", headers: [.cacheControl: "stale-if-error=30"], as: String.self)
            let body = try? await client.send(request)
            #expect((body == "v1") == expectsStale, "\(responseControl)")
        }
    }
}
