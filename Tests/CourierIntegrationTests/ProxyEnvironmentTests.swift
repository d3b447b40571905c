import Courier
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `http_proxy` is read from the process environment, which every test shares: this suite runs in
/// the test script's serial pass (with the latency tests), never beside another.
@Suite(
    "Proxy environment variables",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .serialized,
    .timeLimit(.minutes(1))
)
struct ProxyEnvironmentTests {
    @Test("http_proxy sends a request for another host through the proxy, as curl does")
    func httpProxy() async throws {
        let proxy = try #require(LocalServers.faults)
        setenv("http_proxy", proxy.absoluteString, 1)
        defer { unsetenv("http_proxy") }
        // A host that does not resolve: only the proxy can answer for it.
        let client = APIClient(baseURL: URL(string: "http://courier-proxied.invalid")!, transport: CurlTransport())

        let head = try await client.send(.get("echo", as: String.self))

        #expect(head.hasPrefix("GET http://courier-proxied.invalid/echo HTTP/1.1"), "\(head)")
    }

    @Test("no_proxy exempts a host from the proxy")
    func noProxy() async throws {
        let proxy = try #require(LocalServers.faults)
        setenv("http_proxy", "http://127.0.0.1:9", 1)
        setenv("no_proxy", "127.0.0.1", 1)
        defer {
            unsetenv("http_proxy")
            unsetenv("no_proxy")
        }
        let client = APIClient(baseURL: proxy, transport: CurlTransport())

        let head = try await client.send(.get("echo", as: String.self))

        #expect(head.hasPrefix("GET /echo HTTP/1.1"), "\(head)")
    }

    @Test(
        "https_proxy with a password the proxy refuses: proxyAuthenticationRequired, sent once, the password nowhere",
        arguments: TransportKind.defaults)
    func connectRefused(kind: TransportKind) async throws {
        let password = "SENTINEL-env-proxy-\(UUID().uuidString.prefix(8))"
        let proxy = try await ProxyAuthenticationTests.proxy()
        let proxyURL = try ProxyAuthenticationTests.url(of: proxy, password: password)
        setenv("https_proxy", proxyURL.absoluteString, 1)
        defer { unsetenv("https_proxy") }
        let log = LogLines()
        let client = APIClient(
            baseURL: URL(string: "https://courier-proxied.invalid")!, transport: kind.make(),
            middlewares: [
                ProxyAuthenticationTests.retry, LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true)),
            ])

        let thrown = await #expect(throws: APIError.self) {
            try await client.send(.get("status/200", as: Data.self))
        }
        unsetenv("https_proxy")  // before the proxy is asked for its counts

        let error = try #require(thrown)
        #expect(error.kind == .transport(.proxyAuthenticationRequired), "\(error)")
        #expect(error.status?.code == 407)
        let refused = try await ProxyAuthenticationTests.refused(proxy)
        #expect(
            refused == ProxyAuthenticationTests.attempts(withCredentials: true, transport: kind),
            "the refused CONNECT was sent again: the proxy refused \(refused) requests")
        for text in ProxyAuthenticationTests.everythingShown(error, log: log) {
            #expect(!text.contains(password), "\(text)")
        }
    }

    @Test(
        "http_proxy answering 407 to a plain-HTTP request: the proxy's status, sent once, the password nowhere",
        arguments: TransportKind.defaults)
    func plainHTTPRefused(kind: TransportKind) async throws {
        let password = "SENTINEL-env-proxy-\(UUID().uuidString.prefix(8))"
        let proxy = try await ProxyAuthenticationTests.proxy()
        let proxyURL = try ProxyAuthenticationTests.url(of: proxy, password: password)
        setenv("http_proxy", proxyURL.absoluteString, 1)
        defer { unsetenv("http_proxy") }
        let log = LogLines()
        let client = APIClient(
            baseURL: URL(string: "http://courier-proxied.invalid")!, transport: kind.make(),
            middlewares: [
                ProxyAuthenticationTests.retry, LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true)),
            ])

        let thrown = await #expect(throws: APIError.self) {
            try await client.send(.get("status/200", as: Data.self))
        }
        unsetenv("http_proxy")  // before the proxy is asked for its counts

        let error = try #require(thrown)
        #expect(error.kind == .unacceptableStatus(407), "\(error)")
        let refused = try await ProxyAuthenticationTests.refused(proxy)
        #expect(
            refused == ProxyAuthenticationTests.attempts(withCredentials: true, transport: kind),
            "the refused request was sent again: the proxy refused \(refused) requests")
        for text in ProxyAuthenticationTests.everythingShown(error, log: log) {
            #expect(!text.contains(password), "\(text)")
        }
    }

    @Test("an http_proxy libcurl cannot use (a scheme typo): not retried, its password in no error and no log")
    func unusableEnvironmentProxy() async throws {
        let password = "SENTINEL-env-typo-\(UUID().uuidString.prefix(8))"
        let origin = try #require(LocalServers.faults)
        setenv("http_proxy", "htps://courier:\(password)@127.0.0.1:9", 1)
        defer { unsetenv("http_proxy") }
        let log = LogLines()
        let counting = AttemptCounting()
        let client = APIClient(
            baseURL: origin, transport: CurlTransport(),
            middlewares: [
                ProxyAuthenticationTests.retry, LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true)),
                counting,
            ])

        let thrown = await #expect(throws: APIError.self) { try await client.send(.get("status/200", as: Data.self)) }

        let error = try #require(thrown)
        #expect(error.kind == .transport(.other), "\(error)")
        #expect(counting.attempts.withLock { $0 } == 1)
        for text in ProxyAuthenticationTests.everythingShown(error, log: log) {
            #expect(!text.contains(password), "\(text)")
        }
    }

    @Test("an origin's 407 through a tunnel from https_proxy with credentials reaches the caller, the POST sent once")
    func originChallengeWithEnvironmentCredentials() async throws {
        let pki = try #require(TestCertificates.shared, "openssl could not make the test certificates")
        let origin = try await pki.server()
        // A proxy that wants no credentials: libcurl still has the environment's, unused, when the
        // origin's 407 comes, and must not answer the origin with them (sending the POST again).
        let proxy = try await ScriptServer.start(script: "proxy.py", lifetime: 120)
        var components = try #require(URLComponents(url: proxy.url, resolvingAgainstBaseURL: false))
        components.user = "courier"
        components.password = "SENTINEL-env-origin-\(UUID().uuidString.prefix(8))"
        setenv("https_proxy", try #require(components.url).absoluteString, 1)
        defer { unsetenv("https_proxy") }
        let transport = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: pki.authority)))
        var post = HTTPRequest(url: origin.url.appending(path: "challenge"))
        post.method = .post
        post.body = .data(Data("charge-once".utf8))

        let response = try await transport.send(post)
        unsetenv("https_proxy")

        #expect(response.status.code == 407)
        let direct = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: pki.authority)))
        let counts = try JSONDecoder().decode(
            [String: Int].self,
            from: try await direct.send(HTTPRequest(url: origin.url.appending(path: "challenges"))).body)
        #expect(counts["posts"] == 1, "the origin got the POST \(counts["posts"] ?? 0) times")
    }
}

/// Counts the attempts that pass it (behind a retry middleware).
private struct AttemptCounting: Middleware {
    let attempts = Locked(0)

    func intercept(_ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse)
        async throws -> HTTPResponse
    {
        attempts.withLock { $0 += 1 }
        return try await next(request)
    }
}
