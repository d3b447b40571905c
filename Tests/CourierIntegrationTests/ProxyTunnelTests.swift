import Courier
import Foundation
import Testing

/// HTTPS through an HTTP proxy, as a user behind a corporate proxy meets it: the proxy's own
/// `200 Connection established` must never stand in for the origin's answer. CurlTransport only:
/// URLSession on Linux can neither trust the test CA nor take a proxy of its own.
@Suite(
    "HTTPS through a CONNECT proxy",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct ProxyTunnelTests {
    private struct Tunnels: Decodable { let tunnels: Int }

    private func origin() throws -> TLSServer {
        try #require(TLSServer.shared, "the HTTPS test server did not start (python3 and openssl are needed)")
    }

    private func transport(origin: TLSServer, proxy: ScriptServer) -> CurlTransport {
        CurlTransport(
            configuration: .init(tls: .init(certificateAuthorities: origin.certificate), proxy: proxy.url))
    }

    private func tunnels(_ proxy: ScriptServer) async throws -> Int {
        let client = APIClient(baseURL: proxy.url, transport: CurlTransport())
        return try await client.send(.get("tunnels", as: Tunnels.self)).tunnels
    }

    @Test(
        "the origin's status, headers and body arrive through a new tunnel and through a reused one",
        arguments: [200, 401, 404, 500, 503])
    func originStatus(status: Int) async throws {
        let origin = try origin()
        let proxy = try await ScriptServer.start(script: "proxy.py", lifetime: 120)
        let transport = transport(origin: origin, proxy: proxy)

        for _ in 0..<3 {
            let response = try await transport.send(HTTPRequest(url: origin.url.appending(path: "status/\(status)")))

            #expect(response.status.code == status)
            #expect(response.headers["X-Origin"] == "tls")
            #expect(response.headers["Proxy-Agent"] == nil)
            #expect(String(decoding: response.body, as: UTF8.self).contains("origin status \(status)"))
        }
        #expect(try await tunnels(proxy) == 1, "the three requests should share one tunnel")
    }

    @Test("through the client, the origin's 404 is an unacceptable status with its body, never a decoded value")
    func clientSeesOriginStatus() async throws {
        struct Message: Decodable, Sendable { let message: String }
        let origin = try origin()
        let proxy = try await ScriptServer.start(script: "proxy.py", lifetime: 120)
        let client = APIClient(baseURL: origin.url, transport: transport(origin: origin, proxy: proxy))

        let error = await #expect(throws: APIError.self) {
            try await client.send(.get("status/404", as: Message.self))
        }

        #expect(error?.kind == .unacceptableStatus(.notFound))
        #expect(error?.response?.headers["X-Origin"] == "tls")
    }

    @Test("a proxy's 403 to CONNECT is cannotConnect with the proxy's status, never a lost connection")
    func connectForbidden() async throws {
        let proxy = try await ScriptServer.start(script: "proxy.py", lifetime: 120)
        // The proxy tunnels to loopback only: any other host is refused with 403.
        let transport = CurlTransport(configuration: .init(proxy: proxy.url))

        let error = await #expect(throws: APIError.self) {
            try await transport.send(HTTPRequest(url: URL(string: "https://courier-proxied.invalid/")!))
        }

        #expect(error?.kind == .transport(.cannotConnect), "\(String(describing: error))")
        #expect(error?.status == .forbidden)
        #expect(error?.message == "the proxy answered CONNECT with 403 Forbidden; nothing reached the origin")
        #expect(error?.response?.url == nil, "the proxy's URL (and a password in it) must not be carried")
    }

    @Test("a download behind the proxy fails on the origin's 404 and leaves no file")
    func downloadSeesOriginStatus() async throws {
        let origin = try origin()
        let proxy = try await ScriptServer.start(script: "proxy.py", lifetime: 120)
        let client = APIClient(baseURL: origin.url, transport: transport(origin: origin, proxy: proxy))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID()).json")

        let error = await #expect(throws: APIError.self) {
            try await client.download(Request<Data>.get("status/404", as: Data.self), to: destination).file()
        }

        #expect(error?.kind == .unacceptableStatus(.notFound))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
