import Courier
import CourierTesting
import Foundation
import Testing

/// A transport's stand-in that holds requests until the test lets them go, counting how many it
/// holds at once.
private final class Valve: Sendable {
    private struct State {
        var holding = 0
        var peak = 0
        var arrivals: [String] = []
        var passes = 0
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Waits until a pass is given or the valve is opened.
    func pass(_ request: HTTPRequest) async {
        await withCheckedContinuation { continuation in
            let goes = state.withLock { state -> Bool in
                state.holding += 1
                state.peak = max(state.peak, state.holding)
                state.arrivals.append(request.url.path)
                if state.isOpen { return true }
                if state.passes > 0 {
                    state.passes -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if goes { continuation.resume() }
        }
        state.withLock { $0.holding -= 1 }
    }

    /// Lets the longest-held request go, or the next one to arrive.
    func letOneGo() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.passes += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }

    /// Lets every request go, now and later.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var holding: Int { state.withLock { $0.holding } }
    var peak: Int { state.withLock { $0.peak } }
    var arrivals: [String] { state.withLock { $0.arrivals } }
}

@Suite("The client's limit on calls in flight")
struct ConcurrencyLimitTests {
    private func client(_ valve: Valve, limit: Int?, middlewares: [any Middleware] = []) -> APIClient {
        let transport = StubTransport().on(.get, "*") { request in
            await valve.pass(request)
            return .json(#"{"ok": true}"#)
        }
        return APIClient(
            baseURL: baseURL, transport: transport, middlewares: middlewares, maximumConcurrentRequests: limit)
    }

    @Test("a new client lets 256 calls in at once")
    func defaultLimit() {
        #expect(APIClient(baseURL: baseURL).maximumConcurrentRequests == 256)
        #expect(APIClient(baseURL: baseURL, maximumConcurrentRequests: 0).maximumConcurrentRequests == 1)
    }

    @Test("no more calls than the limit reach the transport; the others wait, then all finish")
    func limitHolds() async throws {
        let valve = Valve()
        let client = client(valve, limit: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 { group.addTask { _ = try await client.send(.get("item/\(index)", as: Data.self)) } }
            #expect(try await eventually { valve.holding == 3 && client.admission?.counts.waiters == 9 })
            try await Task.sleep(for: .milliseconds(50))
            #expect(valve.holding == 3)
            valve.open()
            try await group.waitForAll()
        }
        #expect(valve.peak == 3)
        #expect(valve.arrivals.count == 12)
        #expect(client.admission?.counts.holders == 0)
    }

    @Test("waiting calls go in the order they arrived")
    func arrivalOrder() async throws {
        let valve = Valve()
        let client = client(valve, limit: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<5 {
                group.addTask { _ = try await client.send(.get("item/\(index)", as: Data.self)) }
                #expect(
                    try await eventually { valve.arrivals.count + (client.admission?.counts.waiters ?? 0) == index + 1 }
                )
            }
            for _ in 0..<5 { valve.letOneGo() }
            try await group.waitForAll()
        }
        #expect(valve.arrivals == (0..<5).map { "/v1/item/\($0)" })
    }

    @Test("the wait counts against the call's timeout, and fails with deadlineExceeded when it runs out")
    func waitingTimesOut() async throws {
        let valve = Valve()
        let client = client(valve, limit: 1)
        let holder = Task { try await client.send(.get("held", as: Data.self)) }
        #expect(try await eventually { valve.holding == 1 })

        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            try await client.send(Request(path: "waits", timeout: .milliseconds(300), as: Data.self))
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.kind == .transport(.deadlineExceeded))
        #expect(error?.message.contains("still waiting behind the client's 1 requests in flight") == true)
        #expect(error?.request?.url.path == "/v1/waits")
        // At its own timeout (the message names it), not before; how soon after is LatencyTests'
        // business (it runs alone): on a loaded machine the cooperative pool may come back late.
        #expect(error?.message.contains("within 0.3 seconds") == true, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(300))
        #expect(client.admission?.counts.waiters == 0)

        valve.open()
        _ = try await holder.value
        #expect(valve.arrivals == ["/v1/held"])
    }

    @Test("a call that times out waiting shows no credential: not in its error, its request or the log")
    func waitingTimeoutKeepsSecrets() async throws {
        let sentinel = "SENTINEL-7f3a9c"
        let valve = Valve()
        let log = CapturingLogHandler()
        let client = client(valve, limit: 1, middlewares: [LoggingMiddleware(sink: log)])
        let holder = Task { try await client.send(.get("held", as: Data.self)) }
        #expect(try await eventually { valve.holding == 1 })

        let error = await #expect(throws: APIError.self) {
            try await client.send(
                Request(
                    path: "waits", query: ["api_key": sentinel], headers: [.authorization: "Bearer \(sentinel)"],
                    timeout: .milliseconds(200), as: Data.self))
        }
        let failure = try #require(error)
        #expect(failure.kind == .transport(.deadlineExceeded))
        #expect(failure.request?.headers.isEmpty == true)
        let texts = [
            String(describing: failure), failure.message, failure.localizedDescription, "\(failure.request as Any)",
        ]
        for text in texts { #expect(!text.contains(sentinel), "\(text)") }
        valve.open()
        _ = try await holder.value
        #expect(!log.lines.joined(separator: "\n").contains(sentinel))
    }

    @Test("a call without a timeout of its own waits no longer than the transport's default timeout")
    func waitingUsesTransportDefault() async throws {
        struct ShortTimeoutTransport: HTTPTimeoutDefaulting {
            let valve: Valve
            var defaultTimeout: Duration { .milliseconds(250) }
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                await valve.pass(request)
                return HTTPResponse(status: .ok)
            }
        }
        let valve = Valve()
        let client = APIClient(
            baseURL: baseURL, transport: ShortTimeoutTransport(valve: valve), maximumConcurrentRequests: 1)
        let holder = Task { try await client.send(.get("held", as: Data.self)) }
        #expect(try await eventually { valve.holding == 1 })

        let error = await #expect(throws: APIError.self) { try await client.send(.get("waits", as: Data.self)) }
        #expect(error?.kind == .transport(.deadlineExceeded))
        // The transport's 250 ms, not the 60 s fallback of a transport that says nothing.
        #expect(error?.message.contains("within 0.25 seconds") == true, "\(String(describing: error))")

        valve.open()
        _ = try await holder.value
    }

    @Test("a call that waited goes on with what is left of its timeout")
    func remainingTimeout() async throws {
        let seen = Locked<[(timeout: Duration?, at: ContinuousClock.Instant)]>([])
        let transport = StubTransport().on(.get, "*") { request in
            seen.withLock { $0.append((request.timeout, ContinuousClock.now)) }
            if request.url.path.hasSuffix("first") { try await Task.sleep(for: .milliseconds(400)) }
            return .json("{}")
        }
        let client = APIClient(baseURL: baseURL, transport: transport, maximumConcurrentRequests: 1)
        let first = Task { try await client.send(.get("first", as: Data.self)) }
        #expect(try await eventually { seen.withLock { $0.count } == 1 })
        let start = ContinuousClock.now
        _ = try await client.send(Request(path: "second", timeout: .seconds(60), as: Data.self))
        _ = try await first.value

        let calls = seen.withLock { $0 }
        #expect(calls.first?.timeout == nil)
        let second = try #require(calls.last)
        let left = try #require(second.timeout)
        // It reached the transport only after the first call's 400 ms, with its 60 s less the wait.
        #expect(second.at - calls[0].at >= .milliseconds(400))
        #expect(left < .seconds(60))
        #expect(left >= .seconds(60) - (second.at - start))
    }

    @Test("a waiting call that is cancelled leaves at once and takes no slot with it")
    func cancelledWaiter() async throws {
        let valve = Valve()
        let client = client(valve, limit: 1)
        let holder = Task { try await client.send(.get("held", as: Data.self)) }
        #expect(try await eventually { valve.holding == 1 })
        let waiter = Task { try await client.send(.get("cancelled", as: Data.self)) }
        #expect(try await eventually { client.admission?.counts.waiters == 1 })

        let start = ContinuousClock.now
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(client.admission?.counts.waiters == 0)

        valve.open()
        _ = try await holder.value
        _ = try await client.send(.get("after", as: Data.self))
        #expect(valve.arrivals == ["/v1/held", "/v1/after"])
        #expect(client.admission?.counts.holders == 0)
    }

    @Test("a call that fails gives its slot back")
    func failureFreesSlot() async throws {
        let transport = StubTransport()
            .on(.get, "/v1/broken", .json("{}", status: 500))
            .on(.get, "/v1/fine", .json("{}"))
        let client = APIClient(baseURL: baseURL, transport: transport, maximumConcurrentRequests: 1)
        await #expect(throws: APIError.self) { try await client.send(.get("broken", as: Data.self)) }
        _ = try await client.send(Request(path: "fine", timeout: .seconds(2), as: Data.self))
        #expect(client.admission?.counts.holders == 0)
    }

    /// A token call through the same client, from a middleware: on the request's own task, or (as
    /// a credential store does) in one shared refresh task the request awaits.
    @Test(
        "a call made from inside the client's own chain does not wait for a slot",
        arguments: [false, true])
    func nestedCallsDoNotWait(inTaskOfItsOwn: Bool) async throws {
        let box = Locked<APIClient?>(nil)
        let middleware = ClosureMiddleware { request, next in
            if request.url.path.hasSuffix("outer") {
                let token = { @Sendable in
                    try await box.withLock { $0 }!.send(Request(path: "token", timeout: .seconds(2), as: Data.self))
                }
                _ = try await inTaskOfItsOwn ? Task { try await token() }.value : token()
            }
            return try await next(request)
        }
        let client = APIClient(
            baseURL: baseURL, transport: StubTransport().on(.get, "*", .json("{}")), middlewares: [middleware],
            maximumConcurrentRequests: 1)
        box.withLock { $0 = client }

        _ = try await client.send(Request(path: "outer", timeout: .seconds(2), as: Data.self))
    }

    @Test("without a limit every call reaches the transport at once")
    func noLimit() async throws {
        let valve = Valve()
        let client = client(valve, limit: nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 { group.addTask { _ = try await client.send(.get("item/\(index)", as: Data.self)) } }
            #expect(try await eventually { valve.holding == 300 })
            valve.open()
            try await group.waitForAll()
        }
        #expect(client.admission == nil)
    }

    @Test("a stream does not wait behind the limit")
    func streamsDoNotCount() async throws {
        let valve = Valve()
        let transport = StubTransport()
            .on(.get, "/v1/held") { request in
                await valve.pass(request)
                return .json("{}")
            }
            .on(.get, "/v1/export", .text("a\nb\n"))
        let client = APIClient(baseURL: baseURL, transport: transport, maximumConcurrentRequests: 1)
        let holder = Task { try await client.send(.get("held", as: Data.self)) }
        #expect(try await eventually { valve.holding == 1 })

        var lines: [String] = []
        for try await line in try await client.stream(.get("export", as: Data.self)).lines { lines.append(line) }
        #expect(lines == ["a", "b"])

        valve.open()
        _ = try await holder.value
    }
}

/// A middleware made of a closure.
private struct ClosureMiddleware: Middleware {
    let body:
        @Sendable (HTTPRequest, @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) async throws ->
            HTTPResponse

    init(
        _ body:
            @escaping @Sendable (HTTPRequest, @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse)
            async throws -> HTTPResponse
    ) {
        self.body = body
    }

    func intercept(
        _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try await body(request, next)
    }
}
