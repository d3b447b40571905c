import Courier
import Foundation
import Testing

/// The explicit cookie jar on real sockets, both transports: a login redirect, refused cookies,
/// per-hop cookies across a cross-port redirect, deletion, and redaction in logs.
@Suite(
    "Cookie jar on the wire", .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct CookieJarIntegrationTests {
    private struct Echo: Decodable { let cookie: String? }

    @Test(
        "a login redirect stores its cookies before the next hop, which carries them; refused ones stay out",
        arguments: TransportKind.allCases)
    func loginFlow(kind: TransportKind) async throws {
        let jar = CookieJar()
        let client = kind.client(LocalServers.faults, middlewares: [CookieMiddleware(jar: jar)])

        let home = try await client.send(.get("cookies/login", as: Echo.self))

        #expect(home.cookie == "session=s3cret; theme=dark")
        #expect(Set(jar.allCookies.map(\.name)) == ["session", "theme"])
        #expect(jar.allCookies.first { $0.name == "session" }?.isHTTPOnly == true)
        #expect(try await client.send(.get("cookies/home", as: Echo.self)).cookie == "session=s3cret; theme=dark")
        // Path=/cookies: not sent elsewhere on the host.
        let echo = try await client.send(.get("echo", as: Data.self))
        #expect(!String(decoding: echo, as: UTF8.self).lowercased().contains("cookie:"))

        _ = try await client.send(.get("cookies/logout", as: Data.self))
        #expect(try await client.send(.get("cookies/home", as: Echo.self)).cookie == "theme=dark")
    }

    @Test(
        "across a cross-port redirect the jar's cookies follow their host; the caller's own Cookie header does not",
        arguments: TransportKind.allCases)
    func crossOrigin(kind: TransportKind) async throws {
        let jar = CookieJar()
        let client = kind.client(LocalServers.faults, middlewares: [CookieMiddleware(jar: jar)])
        _ = try await client.send(.get("cookies/login", as: Echo.self))

        var route = Request<Echo>(path: "cookies/cross")
        route.headers[.cookie] = "mine=private"
        let other = try await client.send(route)
        #expect(other.cookie == "session=s3cret; theme=dark")

        var same = Request<Echo>(path: "cookies/home")
        same.headers[.cookie] = "mine=private"
        #expect(try await client.send(same).cookie == "mine=private; session=s3cret; theme=dark")
    }

    @Test("jar cookies are redacted in logs, requests and responses alike", arguments: TransportKind.allCases)
    func redaction(kind: TransportKind) async throws {
        let lines = LogLines()
        let client = kind.client(
            LocalServers.faults,
            middlewares: [
                CookieMiddleware(jar: CookieJar()),
                LoggingMiddleware(sink: lines, configuration: .init(logsHeaders: true)),
            ])
        _ = try await client.send(.get("cookies/login", as: Echo.self))
        _ = try await client.send(.get("cookies/home", as: Echo.self))
        // The Set-Cookie of the redirect hop and the Cookie of the final request and the next one.
        #expect(lines.all.contains { $0.lowercased().contains("cookie") }, "\(lines.all)")
        let leaking = lines.all.filter { $0.contains("s3cret") }
        #expect(leaking.isEmpty, "\(leaking)")
    }
}
