import Courier
import Foundation
import Testing

/// CurlTransport's proxy settings against proxies of `scripts/servers/`: SOCKS5 (names resolved
/// here) and SOCKS5h (by the proxy), user and password for SOCKS and HTTP proxies in a
/// ``ProxyCredential``, an HTTPS proxy, `noProxy`; and the proxy's credentials never reaching an
/// origin, through a tunnel, a forwarded plain-HTTP request or a redirect to a host reached directly.
@Suite(
    "Proxy settings: SOCKS5, HTTPS proxies, credentials, noProxy",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(2))
)
struct ProxyOptionsTests {
    private struct SocksCounts: Decodable {
        let connections: Int
        let names: [String]
        let refused: Int
    }

    private struct ProxyCounts: Decodable {
        let tunnels: Int
        let refused: Int
        let forwarded: Int
    }

    private struct Echo: Decodable { let headers: [String: String] }

    private struct Peer: Decodable { let port: Int }

    static let user = "courier"
    static let password = "SENTINEL-proxy-password-\(UUID().uuidString.prefix(8))"

    private func certificates() throws -> TestCertificates {
        try #require(TestCertificates.shared, "openssl could not make the test certificates")
    }

    private static func socks(credentials: Bool) async throws -> ScriptServer {
        try await ScriptServer.start(
            script: "socks.py", arguments: credentials ? ["--credentials", "\(user):\(password)"] : [], lifetime: 120)
    }

    private static func counts<Counts: Decodable & Sendable>(_ server: ScriptServer, _ path: Path) async throws
        -> Counts
    {
        try await APIClient(baseURL: server.url, transport: CurlTransport()).send(.get(path, as: Counts.self))
    }

    /// `scheme://127.0.0.1:PORT` of a proxy script announced as `http://…`.
    private static func url(_ server: ScriptServer, scheme: String) throws -> URL {
        var components = try #require(URLComponents(url: server.url, resolvingAgainstBaseURL: false))
        components.scheme = scheme
        return try #require(components.url)
    }

    /// The origin under the name only the SOCKS proxy (or a `resolve` entry) can resolve.
    private static func named(_ origin: ScriptServer, path: String) throws -> URL {
        var components = try #require(URLComponents(url: origin.url, resolvingAgainstBaseURL: false))
        components.host = TestCertificates.serverName
        components.path = "/" + path
        return try #require(components.url)
    }

    @Test("socks5h: the proxy resolves a name no DNS knows, and TLS checks the certificate against that name")
    func socks5h() async throws {
        let pki = try certificates()
        let origin = try await pki.server()
        let proxy = try await Self.socks(credentials: true)
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: pki.authority), proxy: try Self.url(proxy, scheme: "socks5h"),
                proxyCredential: ProxyCredential(user: Self.user, password: Self.password)))

        let response = try await transport.send(HTTPRequest(url: try Self.named(origin, path: "status/200")))

        #expect(response.status == .ok)
        #expect(response.headers["X-Origin"] == "tls")
        let counts: SocksCounts = try await Self.counts(proxy, "connections")
        #expect(counts.names == [TestCertificates.serverName] && counts.refused == 0, "\(counts)")
    }

    @Test("socks5: names are resolved here (a name only the proxy knows fails), addresses go through")
    func socks5() async throws {
        let pki = try certificates()
        let origin = try await pki.server()
        let proxy = try await Self.socks(credentials: false)
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: pki.authority), proxy: try Self.url(proxy, scheme: "socks5")))

        let response = try await transport.send(HTTPRequest(url: origin.url.appending(path: "status/204")))
        let error = await #expect(throws: APIError.self) {
            try await transport.send(HTTPRequest(url: try Self.named(origin, path: "status/200")))
        }

        #expect(response.status.code == 204)
        #expect(error?.kind == .transport(.cannotConnect), "\(String(describing: error))")
        let counts: SocksCounts = try await Self.counts(proxy, "connections")
        #expect(counts.connections == 1 && counts.names.isEmpty, "\(counts)")
    }

    @Test(
        "a SOCKS5 proxy that refuses the password, or wants one: proxyAuthenticationRequired, asked once, the password nowhere",
        arguments: [true, false])
    func socksRefused(sendsWrongPassword: Bool) async throws {
        let wrong = "SENTINEL-wrong-\(UUID().uuidString.prefix(8))"
        let proxy = try await Self.socks(credentials: true)
        let log = LogLines()
        let transport = CurlTransport(
            configuration: .init(
                proxy: try Self.url(proxy, scheme: "socks5h"),
                proxyCredential: sendsWrongPassword ? ProxyCredential(user: Self.user, password: wrong) : nil))
        let client = APIClient(
            baseURL: URL(string: "http://courier-socks.test")!, transport: transport,
            middlewares: [
                ProxyAuthenticationTests.retry, LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true)),
            ])

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("status/200", as: Data.self)) })

        #expect(error.kind == .transport(.proxyAuthenticationRequired), "\(error)")
        #expect(error.message.contains("SOCKS"), "\(error.message)")
        let counts: SocksCounts = try await Self.counts(proxy, "connections")
        #expect(counts.refused == 1, "the refused request was sent again: \(counts)")
        for text in ProxyAuthenticationTests.everythingShown(error, log: log) {
            #expect(!text.contains(wrong), "\(text)")
        }
    }

    @Test("an HTTPS proxy: TLS to the proxy under proxyTLS, CONNECT inside it; an untrusted proxy is refused")
    func httpsProxy() async throws {
        let pki = try certificates()
        let origin = try await pki.server()
        let proxy = try await ScriptServer.start(
            script: "proxy.py", arguments: ["--tls", pki.serverCertificate.path, pki.serverKey.path], lifetime: 120)
        #expect(proxy.url.scheme == "https")
        let trusting = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: pki.authority), proxy: proxy.url,
                proxyTLS: .init(certificateAuthorities: pki.authority)))
        let untrusting = CurlTransport(
            configuration: .init(tls: .init(certificateAuthorities: pki.authority), proxy: proxy.url))

        let response = try await trusting.send(HTTPRequest(url: origin.url.appending(path: "status/201")))
        let error = await #expect(throws: APIError.self) {
            try await untrusting.send(HTTPRequest(url: origin.url.appending(path: "status/201")))
        }

        #expect(response.status.code == 201)
        #expect(response.headers["X-Origin"] == "tls")
        #expect(error?.kind == .transport(.tls), "\(String(describing: error))")
    }

    @Test("a ProxyCredential opens the tunnel, wins over the URL's, and a wrong one is proxyAuthenticationRequired")
    func credentialValue() async throws {
        let pki = try certificates()
        let origin = try await pki.server()
        let proxy = try await ProxyAuthenticationTests.proxy()
        let urlWithWrongPassword = try ProxyAuthenticationTests.url(of: proxy, password: "wrong")
        func transport(_ credential: ProxyCredential?) -> CurlTransport {
            CurlTransport(
                configuration: .init(
                    tls: .init(certificateAuthorities: pki.authority), proxy: urlWithWrongPassword,
                    proxyCredential: credential))
        }
        let right = ProxyCredential(user: ProxyAuthenticationTests.user, password: ProxyAuthenticationTests.password)

        let response = try await transport(right).send(HTTPRequest(url: origin.url.appending(path: "status/200")))
        let error = await #expect(throws: APIError.self) {
            try await transport(ProxyCredential(user: "courier", password: "nope")).send(
                HTTPRequest(url: origin.url.appending(path: "status/200")))
        }

        #expect(response.status == .ok)
        #expect(error?.kind == .transport(.proxyAuthenticationRequired), "\(String(describing: error))")
    }

    @Test("the proxy's credentials reach no origin: not through the tunnel, not forwarded, not after a redirect")
    func credentialsStayWithTheProxy() async throws {
        let pki = try certificates()
        let httpbin = try #require(LocalServers.httpbin)
        let other = try #require(LocalServers.httpbinOtherOrigin)
        let tlsOrigin = try await pki.server()
        let proxy = try await ScriptServer.start(
            script: "proxy.py", arguments: ["--credentials", "\(Self.user):\(Self.password)"], lifetime: 120)
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: pki.authority), proxy: proxy.url,
                proxyCredential: ProxyCredential(user: Self.user, password: Self.password), noProxy: ["localhost"]))
        let client = APIClient(baseURL: httpbin, transport: transport)
        let basic = Data("\(Self.user):\(Self.password)".utf8).base64EncodedString()

        let tunnelled = try await APIClient(baseURL: tlsOrigin.url, transport: transport)
            .send(.get("headers", as: Echo.self))
        let forwarded = try await client.send(.get("headers", as: Echo.self))
        let redirected = try await client.send(
            .get("redirect-to", query: ["url": other.appending(path: "headers").absoluteString], as: Echo.self))

        for (hop, echo) in [("tunnel", tunnelled), ("forwarded", forwarded), ("redirect", redirected)] {
            let seen = echo.headers.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
            #expect(!seen.lowercased().contains("proxy-authorization"), "\(hop): \(seen)")
            #expect(!seen.contains(Self.password) && !seen.contains(basic), "\(hop): \(seen)")
        }
        let counts: ProxyCounts = try await Self.counts(proxy, "tunnels")
        // The redirect's first hop went through the proxy, its second (to localhost) did not. Each
        // new connection to the proxy starts without credentials, to learn which scheme it wants.
        #expect(counts.tunnels == 1 && counts.forwarded == 2 && counts.refused <= 3, "\(counts)")
    }

    @Test("a caller's Proxy-Authorization opens the tunnel and reaches no origin: not through it, not directly")
    func callerProxyHeadersStayWithTheProxy() async throws {
        let pki = try certificates()
        let httpbin = try #require(LocalServers.httpbin)
        let tlsOrigin = try await pki.server()
        let proxy = try await ScriptServer.start(
            script: "proxy.py", arguments: ["--credentials", "\(Self.user):\(Self.password)"], lifetime: 120)
        let basic = Data("\(Self.user):\(Self.password)".utf8).base64EncodedString()
        let proxied = CurlTransport(
            configuration: .init(tls: .init(certificateAuthorities: pki.authority), proxy: proxy.url))
        let direct = CurlTransport()
        var tunnelled = HTTPRequest(url: tlsOrigin.url.appending(path: "headers"))
        tunnelled.headers["Proxy-Authorization"] = "Basic \(basic)"
        tunnelled.headers["Proxy-Courier-Test"] = "for the proxy"
        var directly = HTTPRequest(url: httpbin.appending(path: "headers"))
        directly.headers = tunnelled.headers

        // Twice each: the second transfer runs on a pooled handle, which must not keep the first's.
        var seen: [(String, HTTPResponse)] = []
        for _ in 0..<2 {
            seen.append(("tunnel", try await proxied.send(tunnelled)))
            seen.append(("direct", try await direct.send(directly)))
            seen.append(
                (
                    "direct, no header",
                    try await proxied.send(HTTPRequest(url: tlsOrigin.url.appending(path: "headers")))
                ))
        }

        for (hop, response) in seen {
            #expect(response.status == .ok, "\(hop): \(response.status)")
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            let headers = echo.headers.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
            #expect(!headers.lowercased().contains("proxy-"), "\(hop): \(headers)")
            #expect(!headers.contains(basic), "\(hop): \(headers)")
        }
        let counts: ProxyCounts = try await Self.counts(proxy, "tunnels")
        #expect(counts.tunnels >= 1, "\(counts)")
    }

    @Test("an origin's 407 through the tunnel is its response: a POST and a GET reach it once, with a proxy credential")
    func originChallengeSentOnce() async throws {
        let pki = try certificates()
        let origin = try await pki.server()
        // A proxy that wants no credentials: libcurl still has them, unused, when the origin's 407 comes.
        let proxy = try await ScriptServer.start(script: "proxy.py", lifetime: 120)
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: pki.authority), proxy: proxy.url,
                proxyCredential: ProxyCredential(user: Self.user, password: Self.password)))
        var post = HTTPRequest(url: origin.url.appending(path: "challenge"))
        post.method = .post
        post.body = .data(Data("charge-once".utf8))

        let responses = [
            try await transport.send(post), try await transport.send(HTTPRequest(url: post.url)),
        ]

        for response in responses {
            #expect(response.status.code == 407)
            #expect(response.headers["Proxy-Authenticate"] == #"Basic realm="origin""#)
        }
        let direct = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: pki.authority)))
        let counts = try JSONDecoder().decode(
            [String: Int].self,
            from: try await direct.send(HTTPRequest(url: origin.url.appending(path: "challenges"))).body)
        #expect(counts["posts"] == 2, "the origin got the POST and the GET \(counts["posts"] ?? 0) times")
    }

    @Test("noProxy sends a listed host directly, past an explicitly configured proxy")
    func noProxy() async throws {
        let httpbin = try #require(LocalServers.httpbin)
        // Nothing listens on port 9: a request that goes to the proxy fails.
        let proxy = URL(string: "http://127.0.0.1:9")!
        let direct = CurlTransport(configuration: .init(proxy: proxy, noProxy: ["127.0.0.1"]))
        let proxied = CurlTransport(configuration: .init(proxy: proxy, noProxy: ["localhost"]))

        // "*" means every host wherever it stands in the list (libcurl takes it only alone).
        let everyHost = CurlTransport(configuration: .init(proxy: proxy, noProxy: ["example.invalid", "*"]))
        let starred = try await everyHost.send(HTTPRequest(url: httpbin.appending(path: "status/200")))
        #expect(starred.status == .ok)

        let response = try await direct.send(HTTPRequest(url: httpbin.appending(path: "status/200")))
        let error = await #expect(throws: APIError.self) {
            try await proxied.send(HTTPRequest(url: httpbin.appending(path: "status/200")))
        }

        #expect(response.status == .ok)
        #expect(error?.kind == .transport(.cannotConnect), "\(String(describing: error))")
    }
}
