import Courier
import CourierTesting
import Foundation
import Testing

/// A provider whose refresh hands out `new-1`, `new-2`, … after a short wait, counting refreshes.
private final class CountingTokens: CredentialProvider {
    let refreshes = Counter()
    let initial: Credential
    let failure: (any Error)?
    let delay: Duration
    let gate: Latch?

    init(
        initial: Credential = .bearer("old"), failure: (any Error)? = nil, delay: Duration = .milliseconds(50),
        gate: Latch? = nil
    ) {
        self.initial = initial
        self.failure = failure
        self.delay = delay
        self.gate = gate
    }

    func credential() async throws -> Credential { initial }

    func refresh(rejecting credential: Credential) async throws -> Credential? {
        let number = refreshes.increment()
        try await Task.sleep(for: delay)
        try await gate?.wait()
        if let failure { throw failure }
        return .bearer("new-\(number)")
    }
}

private struct IdentityServerDown: Error {}

/// Accepts only `Bearer <accepted>`; answers 401 otherwise after `delay`.
private func server(accepting accepted: String, delay: Duration = .milliseconds(100)) -> StubTransport {
    StubTransport().on(.get, "*") { request in
        request.headers[.authorization] == "Bearer \(accepted)"
            ? .json(#"{"name": "ada"}"#) : .status(.unauthorized).delayed(by: delay)
    }
}

private struct Profile: Codable, Sendable, Equatable {
    let name: String
}

@Suite("Authentication middleware")
struct AuthMiddlewareTests {
    @Test("10 concurrent requests rejected with 401 cause exactly one refresh, and all succeed")
    func singleFlightRefresh() async throws {
        let tokens = CountingTokens()
        let transport = server(accepting: "new-1")
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: tokens)])

        let profiles = try await withThrowingTaskGroup(of: Profile.self) { group in
            for _ in 0..<10 { group.addTask { try await client.send(.get("me", as: Profile.self)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(profiles == Array(repeating: Profile(name: "ada"), count: 10))
        #expect(tokens.refreshes.count == 1)
        let sent = transport.requests.map { $0.headers[.authorization] }
        #expect(sent.filter { $0 == "Bearer old" }.count == 10)
        #expect(sent.filter { $0 == "Bearer new-1" }.count == 10)
    }

    @Test("a refresh failure fails all ten requests with the same typed error")
    func refreshFailureReachesEveryWaiter() async throws {
        let tokens = CountingTokens(failure: IdentityServerDown())
        let transport = server(accepting: "never")
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: tokens)])

        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await client.send(.get("me", as: Profile.self))
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(tokens.refreshes.count == 1)
        #expect(errors.count == 10)
        for error in errors {
            let error = try #require(error as? APIError)
            #expect(error.kind == .authentication(.refreshFailed))
            #expect(error.underlyingError is IdentityServerDown)
            #expect(error.request?.url.path == "/v1/me")
        }
        #expect(transport.requests.count == 10)
    }

    @Test("a request is replayed at most once: a second 401 reaches the caller")
    func replayedOnce() async throws {
        let tokens = CountingTokens()
        let transport = server(accepting: "never", delay: .zero)
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: tokens)])

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("me", as: Profile.self)) })

        #expect(error.kind == .unacceptableStatus(.unauthorized))
        #expect(transport.requests.map { $0.headers[.authorization] } == ["Bearer old", "Bearer new-1"])
    }

    @Test("a request rejected with a credential already replaced is retried with the new one, no second refresh")
    func staleCredentialReusesNewOne() async throws {
        let tokens = CountingTokens(delay: .zero)
        let gate = Counter()
        // The first request is held until a second one has been rejected and refreshed.
        let transport = StubTransport().on(.get, "*") { request in
            if request.headers[.authorization] == "Bearer new-1" { return .json(#"{"name": "ada"}"#) }
            return gate.increment() == 1
                ? .status(.unauthorized).delayed(by: .milliseconds(300)) : .status(.unauthorized)
        }
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: tokens)])

        async let slow = client.send(.get("slow", as: Profile.self))
        try await Task.sleep(for: .milliseconds(50))
        let fast = try await client.send(.get("fast", as: Profile.self))
        let late = try await slow

        #expect(fast == Profile(name: "ada") && late == Profile(name: "ada"))
        #expect(tokens.refreshes.count == 1)
    }

    @Test("too many refreshes in a short window stop with a typed error instead of looping")
    func refreshLimit() async throws {
        let tokens = CountingTokens(delay: .zero)
        let transport = server(accepting: "never", delay: .zero)
        let auth = AuthMiddleware(provider: tokens, configuration: .init(maximumRefreshesPerWindow: 3))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [auth])

        for _ in 0..<3 {
            await #expect(throws: APIError.self) { try await client.send(.get("me", as: Profile.self)) }
        }
        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("me", as: Profile.self)) })

        #expect(error.kind == .authentication(.refreshLimitExceeded))
        #expect(tokens.refreshes.count == 3)
        #expect(error.description.contains("refused the credential again after 3 refreshes within 30 seconds"))
    }

    @Test("a credential that expires within the margin is refreshed before it is sent")
    func proactiveRefresh() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let tokens = CountingTokens(initial: .bearer("old", expiresAt: clock.now.addingTimeInterval(120)), delay: .zero)
        let transport = StubTransport().on(.get, "*") { request in
            ["Bearer old", "Bearer new-1"].contains(request.headers[.authorization] ?? "")
                ? .json(#"{"name": "ada"}"#) : .status(.unauthorized)
        }
        let auth = AuthMiddleware(
            provider: tokens, configuration: .init(refreshMargin: .seconds(30), now: { clock.now }))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [auth])

        _ = try await client.send(.get("me", as: Profile.self))
        clock.advance(by: 100)  // 20 s left: within the 30 s margin
        _ = try await client.send(.get("me", as: Profile.self))
        _ = try await client.send(.get("me", as: Profile.self))

        #expect(
            transport.requests.map { $0.headers[.authorization] } == ["Bearer old", "Bearer new-1", "Bearer new-1"])
        #expect(tokens.refreshes.count == 1)
    }

    @Test(
        "short-lived tokens are refreshed a quarter of their lifetime ahead, not on every request, and never hit the limit"
    )
    func shortLivedTokens() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let tokens = ExpiringTokens(lifetime: 2, clock: clock)
        let transport = StubTransport().on(.get, "*", .json(#"{"name": "ada"}"#))
        let auth = AuthMiddleware(provider: tokens, configuration: .init(now: { clock.now }))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [auth])

        for _ in 0..<100 {
            _ = try await client.send(.get("me", as: Profile.self))
            clock.advance(by: 0.1)
        }
        // 10 s of 2 s tokens refreshed 0.5 s before expiry: one refresh every 1.5 s.
        #expect((5...8).contains(tokens.refreshes.count), "\(tokens.refreshes.count) refreshes")
    }

    @Test("a 401 that the provider cannot refresh goes to the caller, and the middleware says why")
    func cannotRefreshIsLogged() async throws {
        let lines = CapturingLogHandler()
        let transport = StubTransport().on(.get, "*", .status(.unauthorized))
        let auth = AuthMiddleware(provider: FixedCredential(.bearer("t")), configuration: .init(log: lines))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [auth])
        let error = await #expect(throws: APIError.self) { try await client.send(.get("me", as: Profile.self)) }
        #expect(error?.kind == .unacceptableStatus(.unauthorized))
        #expect(lines.lines.contains { $0.contains("FixedCredential cannot refresh") }, "\(lines.lines)")
    }

    @Test("routes that do not require authentication are left alone")
    func publicRoutes() async throws {
        let tokens = CountingTokens()
        let transport = StubTransport().on(.get, "*", .json(#"{"name": "ada"}"#))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: tokens)])

        _ = try await client.send(
            Request<Profile>.get("public", as: Profile.self).policies(requiresAuthentication: false))

        #expect(transport.requests.first?.headers[.authorization] == nil)
        #expect(tokens.refreshes.count == 0)
    }

    @Test("a fixed credential's 401 reaches the caller as an unacceptable status")
    func fixedCredentialRejected() async throws {
        let transport = StubTransport().on(.get, "*", .status(.unauthorized))
        let client = APIClient(
            baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(credential: .bearer("t0ken"))]
        )

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("me", as: Profile.self)) })

        #expect(error.kind == .unacceptableStatus(.unauthorized))
        #expect(transport.requests.count == 1)
    }

    @Test("a waiter cancelled during the refresh leaves; the others continue with its result")
    func cancelledWaiter() async throws {
        let gate = Latch()
        let tokens = CountingTokens(delay: .zero, gate: gate)
        let transport = server(accepting: "new-1", delay: .zero)
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: tokens)])

        let leaving = Task { try await client.send(.get("me", as: Profile.self)) }
        let staying = Task { try await client.send(.get("me", as: Profile.self)) }
        // Both calls were refused and wait for the one refresh, held open until the test has cancelled one.
        #expect(try await eventually { transport.requests.count == 2 && tokens.refreshes.count == 1 })
        try await Task.sleep(for: .milliseconds(20))
        leaving.cancel()
        gate.open()

        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(try await staying.value == Profile(name: "ada"))
        #expect(tokens.refreshes.count == 1)
    }

    @Test("an instantly failing refresh is asked once for 20 concurrent 401s and not again during its cooldown")
    func failedRefreshRemembered() async throws {
        let tokens = CountingTokens(failure: IdentityServerDown(), delay: .zero)
        let transport = server(accepting: "never", delay: .milliseconds(5))
        let clock = ManualClock()
        let client = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [
                AuthMiddleware(
                    provider: tokens,
                    configuration: .init(refreshFailureCooldown: .seconds(5), now: { clock.now }))
            ])

        let kinds = await withTaskGroup(of: APIError.Kind?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await #expect(throws: APIError.self) { try await client.send(.get("me", as: Profile.self)) }?.kind
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for _ in 0..<10 {
            _ = try? await client.send(.get("me", as: Profile.self))
        }

        #expect(kinds.allSatisfy { $0 == .authentication(.refreshFailed) })
        #expect(tokens.refreshes.count == 1)

        clock.advance(by: .seconds(6))
        _ = try? await client.send(.get("me", as: Profile.self))
        #expect(tokens.refreshes.count == 2, "after the cooldown the provider is asked again")
    }

    @Test("failed refreshes count toward the refresh limit")
    func failuresCountTowardLimit() async throws {
        let tokens = CountingTokens(failure: IdentityServerDown(), delay: .zero)
        let clock = ManualClock()
        let client = APIClient(
            baseURL: baseURL, transport: server(accepting: "never", delay: .zero),
            middlewares: [
                AuthMiddleware(
                    provider: tokens,
                    configuration: .init(
                        maximumRefreshesPerWindow: 2, refreshWindow: .seconds(60), refreshFailureCooldown: .seconds(1),
                        now: { clock.now }))
            ])

        var kinds: [APIError.Kind?] = []
        for _ in 0..<3 {
            kinds.append(
                await #expect(throws: APIError.self) { try await client.send(.get("me", as: Profile.self)) }?.kind)
            clock.advance(by: .seconds(2))
        }

        #expect(
            kinds == [
                .authentication(.refreshFailed), .authentication(.refreshFailed),
                .authentication(.refreshLimitExceeded),
            ])
        #expect(tokens.refreshes.count == 2)
    }

    /// Refreshes to `new-1` only when the test opens the gate.
    private final class GatedTokens: CredentialProvider {
        let refreshes = Counter()
        let (opened, gate) = AsyncStream.makeStream(of: Void.self)

        func credential() async throws -> Credential { .bearer("old") }

        func refresh(rejecting credential: Credential) async throws -> Credential? {
            refreshes.increment()
            for await _ in opened { break }
            // A refresh cancelled with its last waiter would lose a rotating refresh token.
            try Task.checkCancellation()
            return .bearer("new-1")
        }
    }

    @Test(
        "a refresh whose only waiter is cancelled still completes; the next request uses its token, no second refresh")
    func refreshOutlivesItsLastWaiter() async throws {
        let tokens = GatedTokens()
        let transport = server(accepting: "new-1", delay: .milliseconds(5))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: tokens)])

        let only = Task { try await client.send(.get("me", as: Profile.self)) }
        let waitStart = ContinuousClock.now
        // Up to a minute: the cooperative pool has a thread per core, which a loaded machine shares.
        while tokens.refreshes.count == 0, ContinuousClock.now - waitStart < .seconds(60) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(tokens.refreshes.count == 1, "the refresh never started")
        only.cancel()
        await #expect(throws: CancellationError.self) { try await only.value }
        tokens.gate.yield()
        // The refresh finishes on its own, with nobody waiting for it.
        try await Task.sleep(for: .milliseconds(100))

        let profile = try await client.send(.get("me", as: Profile.self))

        #expect(profile == Profile(name: "ada"))
        #expect(tokens.refreshes.count == 1)
        #expect(transport.requests.last?.headers[.authorization] == "Bearer new-1")
        #expect(transport.requests.count == 2, "the next request went out with the new token at once")
    }

    @Test("credentials go where they belong, marked sensitive")
    func placements() throws {
        let request = HTTPRequest(url: URL(string: "https://api.example.com/3/movie?api_key=stale&page=2")!)

        let query = Credential.apiKey("k3y value", queryItem: "api_key").authenticate(request)
        let header = Credential.apiKey("k3y", header: "X-Api-Key").authenticate(request)
        let basic = Credential.basic(username: "Aladdin", password: "open sesame").authenticate(request)
        let bearer = Credential.bearer("t0ken").authenticate(basic)

        #expect(query.url.query == "page=2&api_key=k3y%20value")
        #expect(header.headers[.init("X-Api-Key")] == "k3y")
        #expect(basic.headers[.authorization] == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(bearer.headers.values(for: .authorization) == ["Bearer t0ken"])
        #expect(bearer.headers.allSatisfy { $0.isMarkedSensitive })
    }

    @Test("a provider that cannot give a first credential fails with credentialUnavailable")
    func noFirstCredential() async throws {
        let provider = ClosureCredentialProvider(credential: { throw IdentityServerDown() }, refresh: { _ in nil })
        let transport = StubTransport().on(.get, "*", .json("{}"))
        let client = APIClient(
            baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: provider)])

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("me", as: Data.self)) })

        #expect(error.kind == .authentication(.credentialUnavailable))
        #expect(transport.requests.isEmpty)
    }
}

/// A clock tests move by hand.
private final class TestClock: Sendable {
    private let date: Locked<Date>
    init(_ start: Date) { date = Locked(start) }
    var now: Date { date.withLock { $0 } }
    func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }
}

/// Hands out tokens that expire `lifetime` seconds after they are given, counting refreshes.
private final class ExpiringTokens: CredentialProvider {
    let refreshes = Counter()
    let lifetime: TimeInterval
    let clock: TestClock
    init(lifetime: TimeInterval, clock: TestClock) {
        self.lifetime = lifetime
        self.clock = clock
    }
    func credential() async throws -> Credential { .bearer("t0", expiresAt: clock.now.addingTimeInterval(lifetime)) }
    func refresh(rejecting credential: Credential) async throws -> Credential? {
        let number = refreshes.increment()
        return .bearer("t\(number)", expiresAt: clock.now.addingTimeInterval(lifetime))
    }
}
