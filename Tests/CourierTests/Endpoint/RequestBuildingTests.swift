import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Request building")
struct RequestBuildingTests {
    /// The URL the client builds for `path` and `query` on `base`.
    private func url(base: String = "https://api.example.com/v1", path: Path, query: Query = []) async throws
        -> String
    {
        let transport = StubTransport().on(.get, "*", .text(""))
        let client = APIClient(baseURL: URL(string: base)!, transport: transport)
        _ = try await client.send(Request(path: path, query: query, as: Data.self))
        return try #require(transport.requests.first?.url.absoluteString)
    }

    @Test(
        "query values arrive intact: every reserved character is encoded",
        arguments: [
            ("a+b", "a%2Bb"), ("x&y=z", "x%26y%3Dz"), ("#", "%23"), ("%", "%25"), ("?", "%3F"), ("/", "%2F"),
            ("rock & roll", "rock%20%26%20roll"), ("🎸", "%F0%9F%8E%B8"), ("a~b-c_d.e", "a~b-c_d.e"), ("", ""),
        ])
    func queryEncoding(value: String, encoded: String) async throws {
        let built = try await url(path: "search", query: [.init(name: "q", value: value)])
        #expect(built == "https://api.example.com/v1/search?q=\(encoded)")
        let decoded = URLComponents(string: built)?.queryItems?.first?.value
        #expect(decoded == value)
    }

    @Test("query items keep their order, may repeat, and may have no value")
    func queryOrder() async throws {
        let built = try await url(
            path: "s",
            query: [
                .init(name: "b", value: "2"), .init(name: "a", value: "1"), .init(name: "b", value: "3"),
                .init(name: "flag", value: nil),
            ]
        )
        #expect(built == "https://api.example.com/v1/s?b=2&a=1&b=3&flag")
    }

    @Test("the base URL's own query items are kept before the route's")
    func baseQuery() async throws {
        let built = try await url(
            base: "https://api.example.com/3?api_key=k", path: "movie/popular", query: [.init(name: "page", value: "2")]
        )
        #expect(built == "https://api.example.com/3/movie/popular?api_key=k&page=2")
    }

    @Test(
        "paths are appended to the base path, with or without slashes",
        arguments: [
            ("https://api.example.com/3", "movie/popular", "https://api.example.com/3/movie/popular"),
            ("https://api.example.com/3/", "/movie/popular", "https://api.example.com/3/movie/popular"),
            ("https://api.example.com", "search", "https://api.example.com/search"),
            ("https://api.example.com", "", "https://api.example.com/"),
            ("https://api.example.com/3", "", "https://api.example.com/3"),
            ("https://api.example.com:8443/a", "b/", "https://api.example.com:8443/a/b/"),
            (
                "https://api.example.com", ".../.well-known/%2E%2E%2E",
                "https://api.example.com/.../.well-known/%2E%2E%2E"
            ),
            ("https://api.example.com/a#frag", "b", "https://api.example.com/a/b"),
        ] as [(String, Path, String)])
    func pathJoining(base: String, path: Path, expected: String) async throws {
        #expect(try await url(base: base, path: path) == expected)
    }

    @Test(
        "an interpolated path parameter is exactly one segment",
        arguments: [
            ("../admin", "users/..%2Fadmin/posts"), ("a b", "users/a%20b/posts"), ("x?y#z", "users/x%3Fy%23z/posts"),
            ("100%", "users/100%25/posts"), ("é", "users/%C3%A9/posts"),
        ])
    func pathParameter(value: String, encoded: String) async throws {
        let path: Path = "users/\(value)/posts"
        #expect(path.encoded == encoded)
        #expect(try await url(path: path) == "https://api.example.com/v1/\(encoded)")
    }

    @Test(
        "a path that would climb out, query or be ambiguous is refused before any I/O",
        arguments: [
            "users/\("..")" as Path, "users/\(".")/x", "a/../b", "./a", "a/%2e%2E/b", "a/.%2E", "%2E./b", "a/%2e",
            "search?term=x", "a#b", "users/\("")/posts",
        ] as [Path])
    func refusedPaths(path: Path) async throws {
        let transport = StubTransport().on(.get, "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(Request(path: path, as: Data.self)) })

        #expect(error.kind == .invalidRequest)
        #expect(transport.requests.isEmpty)
    }

    @Test(
        "a route's path cannot change the client's host",
        arguments: [
            "//evil.example/x", "http://evil.example/x", "@evil.example", ":80@evil.example/x",
        ] as [Path])
    func hostStaysPut(path: Path) async throws {
        let transport = StubTransport().on(.get, "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let result = await Result { try await client.send(Request(path: path, as: Data.self)) }

        if let request = transport.requests.first {
            #expect(request.url.host == "api.example.com")
            #expect(request.url.port == nil)
            #expect(request.url.user == nil)
            #expect(request.url.path.hasPrefix("/v1/"))
        } else {
            #expect((result.failure as? APIError)?.kind == .invalidRequest, "neither sent nor refused: \(result)")
        }
    }

    @Test("a route's own base URL replaces the client's")
    func routeBaseURL() async throws {
        let built = try await { () async throws -> String in
            let transport = StubTransport().on(.get, "*", .text(""))
            let client = APIClient(baseURL: baseURL, transport: transport)
            _ = try await client.send(
                Request(path: "t/p/w500/x.jpg", baseURL: URL(string: "https://image.example.org")!, as: Data.self))
            return transport.requests.first?.url.absoluteString ?? ""
        }()
        #expect(built == "https://image.example.org/t/p/w500/x.jpg")
    }

    @Test(
        "a ws or wss base URL is read as http or https (RFC 6455 §3), for calls as for sockets",
        arguments: [
            ("ws://chat.example.com:8080/v1", "http://chat.example.com:8080/v1/rooms"),
            ("WSS://chat.example.com/v1/", "https://chat.example.com/v1/rooms"),
        ])
    func webSocketBaseURL(base: String, built: String) async throws {
        #expect(try await url(base: base, path: "rooms") == built)
    }

    @Test(
        "base URLs that are not absolute http(s) URLs are refused",
        arguments: ["file:///etc", "ftp://host/x", "/relative"])
    func badBaseURL(base: String) async throws {
        let transport = StubTransport().on(.get, "*", .text(""))
        let client = APIClient(baseURL: URL(string: base)!, transport: transport)

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("x", as: Data.self)) })

        #expect(error.kind == .invalidRequest)
        #expect(transport.requests.isEmpty)
    }

    @Test("form bodies encode spaces as + and reserved characters by RFC 3986")
    func formBody() async throws {
        let transport = StubTransport().on(.post, "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport)

        _ = try await client.send(
            Request(
                method: .post, path: "token", body: .form([.init(name: "user name", value: "a+b&c=d é")]), as: Data.self
            )
        )

        let request = try #require(transport.requests.first)
        #expect(request.headers[.contentType] == "application/x-www-form-urlencoded")
        #expect(request.body == .data(Data("user+name=a%2Bb%26c%3Dd+%C3%A9".utf8)))
    }

    @Test("raw and text bodies carry their content type unless the route sets one")
    func rawBodies() async throws {
        let transport = StubTransport().on(.put, "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport)

        _ = try await client.send(
            Request(method: .put, path: "a", body: .data(Data([1, 2]), contentType: "image/png"), as: Data.self))
        _ = try await client.send(Request(method: .put, path: "b", body: .text("hi"), as: Data.self))
        _ = try await client.send(
            Request(
                method: .put, path: "c", headers: [.contentType: "application/vnd.api+json"], body: .json(["a": 1]),
                as: Data.self)
        )

        let types = transport.requests.map { $0.headers[.contentType] }
        #expect(types == ["image/png", "text/plain; charset=utf-8", "application/vnd.api+json"])
    }

    @Test("a body that cannot be encoded is an invalid request, not a crash")
    func unencodableBody() async throws {
        let transport = StubTransport().on(.post, "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(.post("x", body: ["value": Double.nan], as: Data.self))
            }
        )

        #expect(error.kind == .invalidRequest)
        #expect(error.underlyingError is EncodingError)
        #expect(transport.requests.isEmpty)
    }

    @Test(
        "a path literal that needs no encoding is taken as it is, and equals the one built character by character",
        arguments: [
            "search", "v1/movies/popular", "a.b", "...", ".well-known/x", "a/", "a//b", "./a", "a/..", "..", "/a",
            "a b", "caf\u{E9}", "a%2Fb", "a%zz", "", "x/./y", "~user/-_.", "a:b@c",
        ])
    func plainPathLiterals(literal: String) {
        var interpolation = Path.StringInterpolation(literalCapacity: literal.utf8.count, interpolationCount: 0)
        interpolation.appendLiteral(literal)
        let byteByByte = Path(stringInterpolation: interpolation)
        #expect(Path(stringLiteral: literal) == byteByByte)
        #expect(Path(stringLiteral: literal).encoded == byteByByte.encoded)
    }
}
