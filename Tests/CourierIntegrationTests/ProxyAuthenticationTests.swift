import Courier
import Foundation
import Testing

/// A proxy that wants credentials (`scripts/servers/proxy.py --credentials`), named in
/// CurlTransport's configuration: its 407 to `CONNECT` is a failure of its own, never a lost
/// connection to retry, and the password in the proxy URL is shown nowhere. (The same through
/// `https_proxy`, on both transports, is in ProxyEnvironmentTests.)
@Suite(
    "A proxy that wants credentials",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct ProxyAuthenticationTests {
    private struct Counts: Decodable {
        let tunnels: Int
        let refused: Int
    }

    static let user = "courier"
    static let password = "the-right-password"

    /// A proxy that answers 407 unless it gets `courier:the-right-password`.
    static func proxy() async throws -> ScriptServer {
        try await ScriptServer.start(
            script: "proxy.py", arguments: ["--credentials", "\(user):\(password)"], lifetime: 120)
    }

    /// The proxy's URL with `password` (and the user) in it, or none.
    static func url(of proxy: ScriptServer, password: String?) throws -> URL {
        var components = try #require(URLComponents(url: proxy.url, resolvingAgainstBaseURL: false))
        if let password {
            components.user = user
            components.password = password
        }
        return try #require(components.url)
    }

    /// What the proxy counted so far.
    private static func counts(_ proxy: ScriptServer) async throws -> Counts {
        try await APIClient(baseURL: proxy.url, transport: CurlTransport()).send(.get("tunnels", as: Counts.self))
    }

    /// How many requests the proxy answered with 407.
    static func refused(_ proxy: ScriptServer) async throws -> Int {
        try await counts(proxy).refused
    }

    /// How many requests CurlTransport sends a proxy that refuses them all: with credentials, libcurl
    /// first asks without them to learn which scheme the proxy wants (`CURLAUTH_ANY`: Basic, Digest,
    /// NTLM, Negotiate), then once with them; never more (no retry).
    static func attempts(withCredentials: Bool, transport: TransportKind = .curl) -> Int {
        withCredentials && transport != .urlSession ? 2 : 1
    }

    /// A retry middleware that retries at once (nothing to wait for in a test).
    static let retry = RetryMiddleware(
        policy: RetryPolicy(maximumAttempts: 3), budget: nil, clock: .init(now: { Date() }, sleep: { _ in }))

    /// Every text a user or a log could see of `error`, with the log's lines.
    static func everythingShown(_ error: APIError, log: LogLines) -> [String] {
        var texts = [error.description, error.message, String(reflecting: error)] + log.all
        if let request = error.request { texts += ["\(request)", request.curlCommand()] }
        if let underlying = error.underlyingError { texts.append(String(describing: underlying)) }
        return texts
    }

    @Test(
        "a proxy's 407 to CONNECT is proxyAuthenticationRequired with its status, sent once, the password nowhere",
        arguments: [nil, "SENTINEL-proxy-password"])
    func connectRefused(password: String?) async throws {
        let password = password.map { "\($0)-\(UUID().uuidString.prefix(8))" }
        let proxy = try await Self.proxy()
        let log = LogLines()
        let transport = CurlTransport(configuration: .init(proxy: try Self.url(of: proxy, password: password)))
        let client = APIClient(
            baseURL: URL(string: "https://courier-proxied.invalid")!, transport: transport,
            middlewares: [Self.retry, LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true))])

        let thrown = await #expect(throws: APIError.self) {
            try await client.send(.get("status/200", as: Data.self))
        }

        let error = try #require(thrown)
        #expect(error.kind == .transport(.proxyAuthenticationRequired), "\(error)")
        #expect(error.status?.code == 407)
        #expect(error.message.contains("407"), "\(error.message)")
        let refused = try await Self.refused(proxy)
        #expect(
            refused == Self.attempts(withCredentials: password != nil),
            "the refused CONNECT was sent again: the proxy refused \(refused) requests")
        if let password {
            for text in Self.everythingShown(error, log: log) {
                #expect(!text.contains(password), "\(text)")
            }
        }
    }

    @Test("an event source does not reconnect after a proxy's 407 to CONNECT")
    func eventSourceGivesUp() async throws {
        let proxy = try await Self.proxy()
        let transport = CurlTransport(configuration: .init(proxy: proxy.url))
        let client = APIClient(baseURL: URL(string: "https://courier-proxied.invalid")!, transport: transport)
        let options = EventSourceOptions(defaultRetry: .milliseconds(10), maximumConsecutiveFailures: 3)

        let error = await #expect(throws: APIError.self) {
            for try await _ in client.events(Request<Data>(path: "sse/script"), options: options) {}
        }

        #expect(error?.kind == .transport(.proxyAuthenticationRequired), "\(String(describing: error))")
        let refused = try await Self.refused(proxy)
        #expect(refused == 1, "the event source connected again: the proxy refused \(refused) requests")
    }

    @Test("a plain-HTTP request through a proxy answering 407 gets that status, sent once, the password nowhere")
    func plainHTTPRefused() async throws {
        let password = "SENTINEL-proxy-password-\(UUID().uuidString.prefix(8))"
        let proxy = try await Self.proxy()
        let log = LogLines()
        let transport = CurlTransport(configuration: .init(proxy: try Self.url(of: proxy, password: password)))
        let client = APIClient(
            baseURL: URL(string: "http://courier-proxied.invalid")!, transport: transport,
            middlewares: [Self.retry, LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true))])

        let thrown = await #expect(throws: APIError.self) {
            try await client.send(.get("status/200", as: Data.self))
        }

        let error = try #require(thrown)
        #expect(error.kind == .unacceptableStatus(407), "\(error)")
        #expect(error.response?.headers["Proxy-Authenticate"] == #"Basic realm="courier-test-proxy""#)
        let refused = try await Self.refused(proxy)
        #expect(
            refused == Self.attempts(withCredentials: true),
            "the refused request was sent again: the proxy refused \(refused) requests")
        for text in Self.everythingShown(error, log: log) {
            #expect(!text.contains(password), "\(text)")
        }
    }

    @Test("with the right credentials in the proxy URL, the tunnel opens and the origin answers")
    func rightCredentials() async throws {
        let origin = try #require(TLSServer.shared, "the HTTPS test server did not start")
        let proxy = try await Self.proxy()
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: origin.certificate),
                proxy: try Self.url(of: proxy, password: Self.password)))

        let response = try await transport.send(HTTPRequest(url: origin.url.appending(path: "status/200")))

        #expect(response.status == .ok)
        #expect(response.headers["X-Origin"] == "tls")
        let counts = try await Self.counts(proxy)
        #expect(counts.tunnels == 1 && counts.refused == Self.attempts(withCredentials: true) - 1)
    }
}
