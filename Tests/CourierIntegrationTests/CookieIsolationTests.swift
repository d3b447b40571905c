import Courier
import Foundation
import Testing

/// No transport keeps cookies by itself: a `Set-Cookie` the server sends is never sent back unless
/// the caller sends it (after a cross-origin redirect stripped it, or from another client sharing
/// the transport, it would leak).
@Suite(
    "No implicit cookie jar",
    .enabled(if: LocalServers.httpbin != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct CookieIsolationTests {
    private struct Headers: Decodable { let headers: [String: String] }

    @Test(
        "a cookie the server set is not sent again, by the same client or another on the transport",
        arguments: TransportKind.allCases)
    func noJar(kind: TransportKind) async throws {
        let httpbin = try #require(LocalServers.httpbin)
        let transport = kind.make()
        let first = APIClient(baseURL: httpbin, transport: transport)
        let second = APIClient(baseURL: httpbin, transport: transport)

        let set = try await first.response(
            for: .get("response-headers", query: ["Set-Cookie": "courier_session=sentinel-7f3a; Path=/"], as: Data.self)
        )
        #expect(set.response.headers.values(for: .setCookie).contains { $0.contains("sentinel-7f3a") })

        for client in [first, second] {
            let echoed = try await client.send(.get("headers", as: Headers.self))
            #expect(echoed.headers["Cookie"] == nil, "\(echoed.headers)")
        }
    }

    @Test(
        "a cookie set by the origin a redirect led to is not sent on the next redirect there",
        arguments: TransportKind.allCases)
    func noJarAcrossRedirects(kind: TransportKind) async throws {
        let httpbin = try #require(LocalServers.httpbin)
        let other = try #require(LocalServers.httpbinOtherOrigin)
        let client = APIClient(baseURL: httpbin, transport: kind.make())
        var setter = try #require(
            URLComponents(url: other.appending(path: "response-headers"), resolvingAgainstBaseURL: false))
        setter.queryItems = [URLQueryItem(name: "Set-Cookie", value: "courier_session=sentinel-9c1d; Path=/")]
        let setterURL = try #require(setter.url).absoluteString
        _ = try await client.send(.get("redirect-to", query: ["url": setterURL], as: Data.self))

        let echoed = try await client.send(
            .get("redirect-to", query: ["url": other.appending(path: "headers").absoluteString], as: Headers.self))

        #expect(echoed.headers["Cookie"] == nil, "\(echoed.headers)")
    }
}
