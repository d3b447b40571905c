import Foundation
import Testing

@testable import Courier

/// A proxy URL libcurl cannot use fails at once, in Courier, with its user information hidden and
/// without a retry; libcurl's own text (which quotes the proxy URL) never shows the proxy's secrets.
@Suite("CurlTransport's proxy settings checked before libcurl sees them")
struct CurlProxyCheckTests {
    static let secret = "SENTINEL-proxy-\(UUID().uuidString.prefix(8))"

    @Test(
        "a proxy URL of another scheme, without a host or with port 0 fails once, not retried, its secret hidden",
        arguments: [
            "ftp://courier:\(secret)@127.0.0.1:9", "htps://courier:\(secret)@127.0.0.1:9",
            "http://courier:\(secret)@:9", "socks5h://courier:\(secret)@127.0.0.1:0",
        ])
    func unusableProxy(url: String) async throws {
        try #require(CurlTransport.isAvailable)
        let configuration = CurlTransport.Configuration(proxy: URL(string: url)!)
        let (failure, attempts) = await Self.sendWithRetries(CurlTransport(configuration: configuration))
        let error = try #require(failure)

        #expect(error.kind == .transport(.other))
        #expect(attempts == 1)
        var dumped = ""
        dump(error, to: &dumped)
        for text in [error.description, error.message, String(reflecting: error), dumped] {
            #expect(!text.contains(Self.secret), "\(text)")
        }
        #expect(error.message.hasPrefix("the proxy URL"), "\(error)")
    }

    @Test("SOCKS5 user names and passwords longer than 255 bytes (RFC 1929) fail in Courier, not retried")
    func longSocksCredential() async throws {
        try #require(CurlTransport.isAvailable)
        let long = String(repeating: "p", count: 256)
        for credential in [
            ProxyCredential(user: "courier", password: long), ProxyCredential(user: long, password: "p"),
        ] {
            let configuration = CurlTransport.Configuration(
                proxy: URL(string: "socks5://127.0.0.1:9")!, proxyCredential: credential)
            let (failure, attempts) = await Self.sendWithRetries(CurlTransport(configuration: configuration))
            let error = try #require(failure)

            #expect(error.kind == .transport(.other) && error.message.contains("RFC 1929"), "\(error)")
            #expect(!error.description.contains(long))
            #expect(attempts == 1)
        }
        let fits = CurlTransport.Configuration(
            proxy: URL(string: "socks5://127.0.0.1:9")!,
            proxyCredential: ProxyCredential(user: "courier", password: String(repeating: "p", count: 255)))
        #expect(CurlProxyCheck.problem(in: fits) == nil)
    }

    @Test("libcurl's text loses the user information of the configured and the environment's proxies")
    func scrubbedText() {
        let configured = CurlTransport.Configuration(
            proxy: URL(string: "http://courier:p%40\(Self.secret)@127.0.0.1:9")!,
            proxyCredential: ProxyCredential(user: "courier", password: "cred/\(Self.secret)"))
        let environment = [
            "http_proxy": "htps://env:ENV\(Self.secret)@127.0.0.1:9", "all_proxy": "TOKEN\(Self.secret)@h",
        ]
        let texts = [
            "Unsupported proxy scheme for 'http://courier:p%40\(Self.secret)@127.0.0.1:9'",
            "Unsupported proxy scheme for 'htps://env:ENV\(Self.secret)@127.0.0.1:9'",
            "Unsupported proxy syntax in 'TOKEN\(Self.secret)@h'",
            "said p@\(Self.secret) and cred/\(Self.secret) and cred%2F\(Self.secret)",
        ]
        for text in texts {
            let scrubbed = CurlProxyCheck.scrub(text, configuration: configured, environment: environment)
            #expect(!scrubbed.contains(Self.secret), "\(scrubbed)")
        }
        #expect(
            CurlProxyCheck.scrub("Failed to connect to 127.0.0.1 port 9", configuration: configured, environment: [:])
                == "Failed to connect to 127.0.0.1 port 9")
    }

    @Test("noProxy: '*' anywhere in the list is every host; IPv6 addresses lose their brackets")
    func noProxyOption() {
        #expect(CurlTransfer.noProxyOption(["*"]) == "*")
        #expect(CurlTransfer.noProxyOption(["example.invalid", "*"]) == "*")
        #expect(CurlTransfer.noProxyOption(["*", "a.example"]) == "*")
        #expect(CurlTransfer.noProxyOption(["a.example", "[::1]", "10.0.0.0/8"]) == "a.example,::1,10.0.0.0/8")
    }

    @Test("idle times: huge ones saturate, libcurl gets one second less than the time rounded up, none ≤ 0")
    func idleTimes() {
        #expect(CurlTransfer.wholeSeconds(.seconds(Int64.max) + .milliseconds(500)) == Int.max)
        #expect(CurlTransfer.maximumAgeOption(.seconds(Int64.max) + .milliseconds(500)) == Int.max - 1)
        #expect(CurlTransfer.maximumAgeOption(.seconds(5)) == 4)
        #expect(CurlTransfer.maximumAgeOption(.milliseconds(1500)) == 1)
        #expect(CurlTransfer.maximumAgeOption(.milliseconds(300)) == 0)
        #expect(CurlTransfer.maximumAgeOption(.zero) == nil)
        #expect(CurlTransfer.maximumAgeOption(.seconds(-5)) == nil)
        #expect(CurlTransfer.isReuseForbidden(.init(maximumConnectionIdleTime: .zero)))
        #expect(CurlTransfer.isReuseForbidden(.init(maximumConnectionIdleTime: .seconds(-5))))
        #expect(!CurlTransfer.isReuseForbidden(.init(maximumConnectionIdleTime: .milliseconds(1))))
        #expect(!CurlTransfer.isReuseForbidden(.init()))
    }

    /// Sends a GET through a retry middleware (three attempts, no sleep): its error and how many
    /// attempts reached the transport.
    static func sendWithRetries(_ transport: CurlTransport) async -> (APIError?, Int) {
        let retry = RetryMiddleware(
            policy: RetryPolicy(maximumAttempts: 3), budget: nil, clock: .init(now: { Date() }, sleep: { _ in }))
        let attempts = Locked(0)
        do {
            _ = try await retry.intercept(HTTPRequest(url: URL(string: "http://127.0.0.1:9/x")!)) { request in
                attempts.withLock { $0 += 1 }
                return try await transport.send(request)
            }
            return (nil, attempts.withLock { $0 })
        } catch {
            return (error as? APIError, attempts.withLock { $0 })
        }
    }
}
