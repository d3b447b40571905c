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
}
