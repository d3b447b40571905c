import Courier
import CourierTesting
import Foundation
import Testing

/// The six middlewares together, in the order the README recommends:
/// metrics → deduplication → retry → auth → cache → logging → transport.
@Suite("All middlewares in the recommended order")
struct RecommendedOrderTests {
    private final class Tokens: CredentialProvider {
        let refreshes = Counter()
        func credential() async throws -> Credential { .bearer("expired-T0KEN") }
        func refresh(rejecting credential: Credential) async throws -> Credential? {
            refreshes.increment()
            try await Task.sleep(for: .milliseconds(20))
            return .bearer("fresh-T0KEN")
        }
    }

    private struct Profile: Codable, Sendable, Equatable {
        let name: String
    }

    @Test(
        "10 concurrent calls: one refresh, one retry of a 503, shared exchanges, a cache hit after, nothing secret logged"
    )
    func together() async throws {
        let served = Counter()
        let transport = StubTransport().on(.get, "v1/me") { request in
            guard request.headers[.authorization] == "Bearer fresh-T0KEN" else {
                return .status(.unauthorized).delayed(by: .milliseconds(150))
            }
            // The first exchange with the fresh token fails once; the retry succeeds.
            if served.increment() == 1 {
                return .status(.serviceUnavailable, headers: [.retryAfter: "0"]).delayed(by: .milliseconds(50))
            }
            return .json(#"{"name": "ada"}"#, headers: [.cacheControl: "private, max-age=60"])
                .delayed(by: .milliseconds(50))
        }
        let tokens = Tokens()
        let log = CapturingLogHandler(minimumLevel: .info)
        let observed = Locked<[RequestMetrics]>([])
        let client = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [
                MetricsMiddleware { metrics in observed.withLock { $0.append(metrics) } },
                DeduplicationMiddleware(),
                RetryMiddleware(clock: ManualClock().retryClock()),
                AuthMiddleware(provider: tokens),
                ResponseCacheMiddleware(policy: CachePolicy(storesAuthenticatedResponses: true)),
                LoggingMiddleware(sink: log),
            ]
        )

        let profiles = try await withThrowingTaskGroup(of: Profile.self) { group in
            for _ in 0..<10 { group.addTask { try await client.send(.get("me", as: Profile.self)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let cached = try await client.response(for: .get("me", as: Profile.self))

        #expect(profiles == Array(repeating: Profile(name: "ada"), count: 10))
        #expect(tokens.refreshes.count == 1)
        // Identical requests in flight were shared: one with the old token, then one 503 and one 200.
        let sent = transport.requests.map { $0.headers[.authorization] ?? "" }
        #expect(sent == ["Bearer expired-T0KEN", "Bearer fresh-T0KEN", "Bearer fresh-T0KEN"])
        // The eleventh call was answered by the cache.
        #expect(cached.value == Profile(name: "ada") && cached.attempts == 0)
        // One log line per exchange on the wire, no token in any.
        #expect(log.lines.count == transport.requests.count)
        #expect(!log.lines.contains { $0.contains("T0KEN") })
        // The metrics middleware saw all eleven calls.
        #expect(observed.withLock { $0.count } == 11)
    }
}
