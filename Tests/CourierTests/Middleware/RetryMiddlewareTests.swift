import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Retry middleware")
struct RetryMiddlewareTests {
    private func client(
        _ transport: StubTransport,
        policy: RetryPolicy = .default,
        budget: RetryBudget? = nil,
        clock: ManualClock,
        random: @escaping @Sendable () -> Double = { 1 }
    ) -> APIClient {
        let retry = RetryMiddleware(policy: policy, budget: budget, clock: clock.retryClock(random: random))
        return APIClient(baseURL: baseURL, transport: transport, middlewares: [retry])
    }

    @Test("a 503 then a 200 succeeds on the second attempt after one backoff")
    func retriesServerError() async throws {
        let clock = ManualClock()
        let transport = StubTransport().on(.get, "*", .status(.serviceUnavailable), .text("ok"))

        let result = try await client(transport, clock: clock).response(for: .get("x", as: String.self))

        #expect(result.value == "ok")
        #expect(result.attempts == 2)
        #expect(clock.sleeps == [.milliseconds(200)])
    }

    @Test("a POST is sent exactly once when the server fails")
    func postNotRetried() async throws {
        let clock = ManualClock()
        let transport = StubTransport().on(.post, "*", .status(.internalServerError))

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client(transport, clock: clock).send(.post("orders", body: ["item": "tea"], as: Data.self))
            })

        #expect(error.kind == .unacceptableStatus(.internalServerError))
        #expect(transport.requests.count == 1)
    }

    @Test("a POST with an Idempotency-Key is sent twice when the first attempt fails")
    func postWithIdempotencyKey() async throws {
        let clock = ManualClock()
        let transport = StubTransport().on(.post, "*", .status(.internalServerError), .text("created"))
        let request = Request(
            method: .post, path: "orders", headers: [.idempotencyKey: "8e03978e"], body: .text("tea"),
            as: String.self
        )

        let value = try await client(transport, clock: clock).send(request)

        #expect(value == "created")
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { $0.headers[.idempotencyKey] == "8e03978e" })
    }

    @Test("Retry-After in seconds on a 429 is honoured")
    func retryAfterSeconds() async throws {
        let clock = ManualClock()
        let transport = StubTransport().on(
            .get, "*", .status(.tooManyRequests, headers: [.retryAfter: "2"]), .text("ok")
        )

        _ = try await client(transport, clock: clock).send(.get("x", as: String.self))

        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test("Retry-After as an HTTP date on a 503 is honoured, measured from the injected clock")
    func retryAfterDate() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 784_111_777))  // Sun, 06 Nov 1994 08:49:37 GMT
        let transport = StubTransport().on(
            .get, "*", .status(.serviceUnavailable, headers: [.retryAfter: "Sun, 06 Nov 1994 08:49:42 GMT"]),
            .text("ok")
        )

        _ = try await client(transport, clock: clock).send(.get("x", as: String.self))

        #expect(clock.sleeps == [.seconds(5)])
    }

    @Test("a Retry-After longer than the maximum fails at once with the server's response")
    func retryAfterTooLong() async throws {
        let clock = ManualClock()
        let transport = StubTransport().on(.get, "*", .status(.serviceUnavailable, headers: [.retryAfter: "3600"]))

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client(transport, clock: clock).send(.get("x", as: String.self))
            })

        #expect(error.kind == .unacceptableStatus(.serviceUnavailable))
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a wait that would pass the request's deadline is not started")
    func waitPastDeadline() async throws {
        let clock = ManualClock()
        let transport = StubTransport().on(.get, "*", .status(.tooManyRequests, headers: [.retryAfter: "2"]))

        await #expect(throws: APIError.self) {
            try await client(transport, clock: clock).send(Request(path: "x", timeout: .seconds(1), as: String.self))
        }

        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("each attempt gets what is left of the request's deadline")
    func deadlineShrinks() async throws {
        let clock = ManualClock()
        let transport = StubTransport().on(.get, "*", .status(.badGateway), .text("ok"))

        _ = try await client(transport, clock: clock).send(Request(path: "x", timeout: .seconds(10), as: String.self))

        let timeouts = transport.requests.compactMap(\.timeout).map(\.timeInterval)
        #expect(timeouts.count == 2)
        #expect(abs(timeouts[0] - 10) < 0.01 && abs(timeouts[1] - 9.8) < 0.01)
    }

    @Test("backoff grows exponentially, is capped, and full jitter draws below it")
    func backoff() async throws {
        let policy = RetryPolicy(
            maximumAttempts: 6, backoff: .init(initial: .milliseconds(100), multiplier: 3, maximum: .seconds(2))
        )
        let full = ManualClock()
        let half = ManualClock()

        for (clock, random) in [(full, 1.0), (half, 0.5)] {
            let transport = StubTransport().on(.get, "*", .status(.serviceUnavailable))
            _ = try? await client(transport, policy: policy, clock: clock, random: { random }).send(
                .get("x", as: String.self))
        }

        let milliseconds = { (clock: ManualClock) in clock.sleeps.map { Int(($0.timeInterval * 1000).rounded()) } }
        #expect(milliseconds(full) == [100, 300, 900, 2000, 2000])
        #expect(milliseconds(half) == [50, 150, 450, 1000, 1000])
    }

    @Test("transient transport failures are retried; a bad response and a passed deadline are not")
    func transportFailures() async throws {
        let cases: [(URLError.Code, Int)] = [(.networkConnectionLost, 2), (.cannotConnectToHost, 2), (.timedOut, 2)]
        for (code, expected) in cases {
            let transport = StubTransport().on(.get, "*", .failure(URLError(code)), .text("ok"))
            _ = try await client(transport, clock: ManualClock()).send(.get("x", as: String.self))
            #expect(transport.requests.count == expected, "\(code)")
        }
        for failure in [TransportFailure.badResponse, .deadlineExceeded, .tls, .proxyAuthenticationRequired] {
            let error = APIError(.transport(failure), message: "no")
            let transport = StubTransport().on(.get, "*", .failure(error), .text("ok"))
            await #expect(throws: APIError.self) {
                try await client(transport, clock: ManualClock()).send(.get("x", as: String.self))
            }
            #expect(transport.requests.count == 1, "\(failure)")
        }
    }

    @Test("a POST that could not connect at all is retried: nothing reached the server")
    func postCannotConnect() async throws {
        let transport = StubTransport().on(.post, "*", .failure(URLError(.cannotConnectToHost)), .text("ok"))

        _ = try await client(transport, clock: ManualClock()).send(.post("orders", body: ["a": "b"], as: String.self))

        #expect(transport.requests.count == 2)
    }

    @Test("a proxy's 407 to CONNECT is not retried, not even as a connection that could not be made")
    func proxyRefusedTunnel() async throws {
        let refusal = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "CONNECT tunnel failed, response 407"])
        for method in [HTTPMethod.get, .post] {
            let transport = StubTransport().on(method, "*", .failure(refusal), .text("ok"))
            let request = Request(method: method, path: "x", as: String.self)

            let error = await #expect(throws: APIError.self) {
                try await client(transport, clock: ManualClock()).send(request)
            }

            #expect(error?.kind == .transport(.proxyAuthenticationRequired))
            #expect(transport.requests.count == 1, "\(method)")
        }
    }

    @Test("a route's policy replaces the middleware's: .never sends once")
    func routePolicy() async throws {
        let transport = StubTransport().on(.get, "*", .status(.serviceUnavailable))
        let request = Request.get("x", as: String.self).policies(retry: .never)

        await #expect(throws: APIError.self) { try await client(transport, clock: ManualClock()).send(request) }

        #expect(transport.requests.count == 1)
    }

    @Test("the retry budget stops retries when the server fails for everyone, and refills on success")
    func budget() async throws {
        let budget = RetryBudget(maximumTokens: 4, tokenRatio: 1)
        let failing = StubTransport().on(.get, "*", .status(.serviceUnavailable))
        let client = client(failing, policy: RetryPolicy(maximumAttempts: 5), budget: budget, clock: ManualClock())

        for _ in 0..<3 { _ = try? await client.send(.get("x", as: String.self)) }

        // 4 tokens, retries allowed while more than 2 remain: the first call retries once, then no more.
        #expect(failing.requests.count == 2 + 1 + 1)
        #expect(budget.remainingTokens == 0)

        let healthy = StubTransport().on(.get, "*", .text("ok"))
        let recovering = self.client(healthy, budget: budget, clock: ManualClock())
        for _ in 0..<3 { _ = try await recovering.send(.get("x", as: String.self)) }
        #expect(budget.remainingTokens == 3)
    }

    @Test("a cancelled request is not retried")
    func noRetryAfterCancellation() async throws {
        let transport = StubTransport().on(.get, "*", .text("late").delayed(by: .seconds(3600)))
        let client = client(transport, clock: ManualClock())

        let call = Task { try await client.send(.get("x", as: String.self)) }
        #expect(try await eventually { transport.requests.count == 1 })
        call.cancel()

        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(transport.requests.count == 1)
    }
}
