import Courier
import Foundation
import Testing

/// CurlTransport's TLS and connection settings on real sockets: the oldest TLS version, HTTP/2 with
/// prior knowledge over cleartext (against `h2c.py`, which speaks nothing else), fixed addresses
/// (`resolve`) with TLS still checking the name, and connection idle time and lifetime, counted by
/// the client ports the server sees.
@Suite(
    "TLS and connection settings",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(2))
)
struct ConnectionOptionsTests {
    private struct Peer: Decodable { let port: Int }

    private struct H2Answer: Decodable {
        let `protocol`: String
        let connection: Int
        let stream: Int
    }

    private func certificates() throws -> TestCertificates {
        try #require(TestCertificates.shared, "openssl could not make the test certificates")
    }

    @Test("minimumVersion 1.3 refuses a server that speaks only TLS 1.2, saying so; 1.2 (the default) talks to it")
    func minimumVersion() async throws {
        let pki = try certificates()
        let old = try await pki.server(version: "1.2")
        let modern = try await pki.server(version: "1.3")
        let strict = CurlTransport(
            configuration: .init(tls: .init(certificateAuthorities: pki.authority, minimumVersion: .tls13)))
        let lenient = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: pki.authority)))

        let error = await #expect(throws: APIError.self) {
            try await strict.send(HTTPRequest(url: old.url.appending(path: "status/200")))
        }

        #expect(error?.kind == .transport(.tls), "\(String(describing: error))")
        #expect(error?.message.contains("TLS 1.3") == true, "\(String(describing: error?.message))")
        #expect(try await strict.send(HTTPRequest(url: modern.url.appending(path: "status/200"))).status == .ok)
        #expect(try await lenient.send(HTTPRequest(url: old.url.appending(path: "status/200"))).status == .ok)
    }

    @Test("http2PriorKnowledge speaks HTTP/2 to a cleartext server that knows nothing else, in turn and at once")
    func h2c() async throws {
        let server = try await ScriptServer.start(script: "h2c.py", lifetime: 120)
        let transport = CurlTransport(configuration: .init(httpVersion: .http2PriorKnowledge))
        let client = APIClient(baseURL: server.url, transport: transport)
        let plain = CurlTransport()

        var answers: [H2Answer] = []
        for _ in 0..<3 {
            answers.append(try await client.send(.get("one", as: H2Answer.self)))
        }
        let concurrent = try await withThrowingTaskGroup(of: H2Answer.self) { group in
            for _ in 0..<8 { group.addTask { try await client.send(.get("many", as: H2Answer.self)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let refused = try await plain.send(HTTPRequest(url: server.url.appending(path: "one")))

        #expect((answers + concurrent).allSatisfy { $0.protocol == "HTTP/2" })
        #expect(concurrent.count == 8)
        // The server answers an HTTP/1.1 request with 505: the default transport did not speak HTTP/2.
        #expect(refused.status.code == 505)
    }

    @Test("h2c prior knowledge to an HTTP/1.1 server that answers 400 at once: badResponse, never retried, 20 times")
    func h2cAgainstHTTP1() async throws {
        let server = try await ScriptServer.start(script: "quick400.py", lifetime: 120)
        let transport = CurlTransport(configuration: .init(httpVersion: .http2PriorKnowledge))
        let retry = RetryMiddleware(
            policy: RetryPolicy(maximumAttempts: 3), budget: nil, clock: .init(now: { Date() }, sleep: { _ in }))
        for round in 0..<20 {
            let attempts = Locked(0)
            let thrown = await #expect(throws: APIError.self) {
                _ = try await retry.intercept(HTTPRequest(url: server.url.appending(path: "x"))) { request in
                    attempts.withLock { $0 += 1 }
                    return try await transport.send(request)
                }
            }
            let error = try #require(thrown)
            #expect(error.kind == .transport(.badResponse), "round \(round): \(error)")
            #expect(error.message.contains("does not speak HTTP/2"), "round \(round): \(error)")
            #expect(attempts.withLock { $0 } == 1, "round \(round)")
        }
    }

    @Test("resolve sends a made-up name to 127.0.0.1, and TLS still checks the certificate against the name")
    func resolve() async throws {
        let pki = try certificates()
        let server = try await pki.server()
        let port = try #require(server.url.port)
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: pki.authority),
                resolve: ["\(TestCertificates.serverName):\(port)": "127.0.0.1", "localhost:\(port)": "127.0.0.1"]))
        let unresolved = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: pki.authority)))
        let named = URL(string: "https://\(TestCertificates.serverName):\(port)/status/200")!

        let response = try await transport.send(HTTPRequest(url: named))
        // The certificate names 127.0.0.1 and courier-resolve.test, not localhost.
        let wrongName = await #expect(throws: APIError.self) {
            try await transport.send(HTTPRequest(url: URL(string: "https://localhost:\(port)/status/200")!))
        }
        let unknown = await #expect(throws: APIError.self) {
            try await unresolved.send(HTTPRequest(url: named))
        }

        #expect(response.status == .ok)
        #expect(wrongName?.kind == .transport(.tls), "\(String(describing: wrongName))")
        #expect(unknown?.kind == .transport(.cannotConnect), "\(String(describing: unknown))")
    }

    /// The client ports the server saw for `count` requests `pause` apart: a new port, a new connection.
    private func ports(
        _ transport: CurlTransport, server: ScriptServer, count: Int, pause: Duration
    ) async throws -> [Int] {
        let client = APIClient(baseURL: server.url, transport: transport)
        var ports: [Int] = []
        for index in 0..<count {
            if index > 0 { try await Task.sleep(for: pause) }
            ports.append(try await client.send(.get("peer", as: Peer.self)).port)
        }
        return ports
    }

    @Test("maximumConnectionIdleTime: a connection idle longer is not reused; without it, it is")
    func idleTime() async throws {
        let pki = try certificates()
        let server = try await pki.server()
        let tls = CurlTransport.TLSOptions(certificateAuthorities: pki.authority)
        let short = CurlTransport(configuration: .init(tls: tls, maximumConnectionIdleTime: .seconds(1)))
        let long = CurlTransport(configuration: .init(tls: tls))

        let shortPorts = try await ports(short, server: server, count: 2, pause: .milliseconds(2200))
        let longPorts = try await ports(long, server: server, count: 2, pause: .milliseconds(2200))

        #expect(Set(shortPorts).count == 2, "\(shortPorts)")
        #expect(Set(longPorts).count == 1, "\(longPorts)")
    }

    @Test("maximumConnectionLifetime: a busy connection is replaced once it is older; without it, it is kept")
    func lifetime() async throws {
        let pki = try certificates()
        let server = try await pki.server()
        let tls = CurlTransport.TLSOptions(certificateAuthorities: pki.authority)
        let short = CurlTransport(configuration: .init(tls: tls, maximumConnectionLifetime: .seconds(1)))
        let long = CurlTransport(configuration: .init(tls: tls))

        // Never idle for more than 0.3 s, for about 2.4 s.
        let shortPorts = try await ports(short, server: server, count: 9, pause: .milliseconds(300))
        let longPorts = try await ports(long, server: server, count: 9, pause: .milliseconds(300))

        #expect(Set(shortPorts).count >= 2, "\(shortPorts)")
        #expect(Set(longPorts).count == 1, "\(longPorts)")
    }
}
