import Courier
import Foundation
import Testing

/// A transport that also records the status of every exchange.
private final class RecordingTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let statuses = Locked<[Int]>([])

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        statuses.withLock { $0.append(response.status.code) }
        return response
    }

    var seen: [Int] { statuses.withLock { $0 } }
}

/// Starts with a credential httpbin's `/bearer` refuses (no bearer scheme), refreshes to a bearer token.
private struct WrongSchemeFirst: CredentialProvider {
    func credential() async throws -> Credential { .apiKey("first", header: "X-Api-Key") }
    func refresh(rejecting credential: Credential) async throws -> Credential? { .bearer("second") }
}

@Suite(
    "Middlewares against httpbin",
    .enabled(if: LocalServers.httpbin != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct MiddlewareIntegrationTests {
    private let base = LocalServers.httpbin ?? URL(string: "http://127.0.0.1:9")!

    @Test(
        "/etag/{etag}: the second GET is revalidated with If-None-Match and the 304 returns the cached body",
        arguments: TransportKind.allCases)
    func eTag(transport kind: TransportKind) async throws {
        let transport = RecordingTransport(kind.make())
        let client = APIClient(baseURL: base, transport: transport, middlewares: [ResponseCacheMiddleware()])

        let first = try await client.send(.get("etag/courier-1", as: Data.self))
        let second = try await client.response(for: .get("etag/courier-1", as: Data.self))

        #expect(transport.seen == [200, 304])
        #expect(second.value == first && !first.isEmpty)
        #expect(second.request.headers[.ifNoneMatch] == "courier-1")  // httpbin sends the ETag unquoted
        #expect(second.response.status == .ok)
    }

    @Test(
        "/cache: a conditional request answered 304 returns the body of the first response",
        arguments: TransportKind.allCases)
    func cacheEndpoint(transport kind: TransportKind) async throws {
        let transport = RecordingTransport(kind.make())
        let client = APIClient(baseURL: base, transport: transport, middlewares: [ResponseCacheMiddleware()])

        let first = try await client.send(.get("cache", as: Data.self))
        let second = try await client.send(.get("cache", as: Data.self))

        #expect(transport.seen == [200, 304])
        #expect(second == first)
    }

    @Test("/cache/60 (max-age=60): the second GET never reaches the server", arguments: TransportKind.allCases)
    func maxAge(transport kind: TransportKind) async throws {
        let transport = RecordingTransport(kind.make())
        let client = APIClient(baseURL: base, transport: transport, middlewares: [ResponseCacheMiddleware()])

        let first = try await client.send(.get("cache/60", as: Data.self))
        let second = try await client.response(for: .get("cache/60", as: Data.self))

        #expect(transport.seen == [200])
        #expect(second.value == first && second.attempts == 0)
    }

    @Test("/status/503 is tried three times, then fails with the status", arguments: TransportKind.allCases)
    func retries(transport kind: TransportKind) async throws {
        let transport = RecordingTransport(kind.make())
        let retry = RetryMiddleware(policy: RetryPolicy(backoff: .init(initial: .milliseconds(10))))
        let client = APIClient(baseURL: base, transport: transport, middlewares: [retry])

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("status/503", as: Data.self)) })

        #expect(error.kind == .unacceptableStatus(.serviceUnavailable))
        #expect(transport.seen == [503, 503, 503])
    }

    @Test(
        "a POST to /status/500 reaches the server once; with an Idempotency-Key, three times",
        arguments: TransportKind.allCases)
    func postOnce(transport kind: TransportKind) async throws {
        let transport = RecordingTransport(kind.make())
        let retry = RetryMiddleware(policy: RetryPolicy(backoff: .init(initial: .milliseconds(10))))
        let client = APIClient(baseURL: base, transport: transport, middlewares: [retry])

        _ = try? await client.send(Request(method: .post, path: "status/500", body: .text("x"), as: Data.self))
        #expect(transport.seen == [500])
        _ = try? await client.send(
            Request(
                method: .post, path: "status/500", headers: [.idempotencyKey: "k1"], body: .text("x"), as: Data.self)
        )
        #expect(transport.seen == [500, 500, 500, 500])
    }

    @Test(
        "Basic credentials open /basic-auth; a refused credential is refreshed and /bearer answers 200",
        arguments: TransportKind.allCases)
    func authentication(transport kind: TransportKind) async throws {
        let basic = APIClient(
            baseURL: base, transport: kind.make(),
            middlewares: [AuthMiddleware(credential: .basic(username: "ada", password: "l0velace"))]
        )
        _ = try await basic.send(.get("basic-auth/ada/l0velace", as: Data.self))

        let transport = RecordingTransport(kind.make())
        let refreshing = APIClient(
            baseURL: base, transport: transport, middlewares: [AuthMiddleware(provider: WrongSchemeFirst())])
        _ = try await refreshing.send(.get("bearer", as: Data.self))
        #expect(transport.seen == [401, 200])
    }

    @Test("20 concurrent GETs of /delay/1 make one exchange", arguments: TransportKind.allCases)
    func deduplication(transport kind: TransportKind) async throws {
        let transport = RecordingTransport(kind.make())
        let client = APIClient(baseURL: base, transport: transport, middlewares: [DeduplicationMiddleware()])

        try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<20 { group.addTask { try await client.send(.get("delay/1", as: Data.self)) } }
            try await group.waitForAll()
        }

        #expect(transport.seen == [200])
    }

    @Test("debug logs of a request httpbin echoes back never show its secrets", arguments: TransportKind.allCases)
    func redactedEcho(transport kind: TransportKind) async throws {
        let secret = "Int3grationSecret"
        let lines = LogLines()
        let logging = LoggingMiddleware(
            sink: lines, configuration: .init(logsBodies: true, maximumBodyBytes: 100_000))
        let client = APIClient(baseURL: base, transport: kind.make(), middlewares: [logging])

        _ = try await client.send(
            .get("anything", query: ["api_key": secret], headers: [.authorization: "Bearer \(secret)"], as: Data.self)
        )

        #expect(lines.all.contains { $0.hasPrefix("response body: ") && $0.contains("REDACTED") })
        #expect(!lines.all.contains { $0.contains(secret) })
    }
}
