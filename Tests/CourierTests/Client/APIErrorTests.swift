import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("APIError")
struct APIErrorTests {
    let itunes = URL(string: "https://itunes.apple.com")!

    @Test("a 400 carries the typed server error body and reads as one sentence")
    func serverErrorBody() async throws {
        let transport = StubTransport().on(
            .get, "/search",
            .json(#"{"errorMessage": "Invalid value(s) for key(s): [mediaType]", "queryParameters": {}}"#, status: 400)
        )
        let client = APIClient(baseURL: itunes, transport: transport)

        let error = try #require(await #expect(throws: APIError.self) { try await client.send(SearchSongs(term: "x")) })

        #expect(error.kind == .unacceptableStatus(.badRequest))
        #expect(error.status == 400)
        #expect(error.errorBody(as: ITunesError.self)?.errorMessage == "Invalid value(s) for key(s): [mediaType]")
        #expect(error.response?.body.isEmpty == false)
        #expect(
            error.description
                == "GET https://itunes.apple.com/search?term=x&media=music → 400 Bad Request: Invalid value(s) for key(s): [mediaType]"
        )
    }

    @Test(
        "the default error body finds the message in common shapes",
        arguments: [
            (#"{"message": "nope"}"#, "nope"),
            (#"{"status_code": 7, "status_message": "Invalid API key", "success": false}"#, "Invalid API key"),
            (#"{"error": {"message": "deep"}}"#, "deep"),
            (#"{"error": "flat"}"#, "flat"),
            (#"{"errors": [{"message": "first"}]}"#, "first"),
        ])
    func defaultErrorBody(body: String, message: String) async throws {
        let client = APIClient(baseURL: itunes, transport: StubTransport().on(.get, "*", .json(body, status: 422)))

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("x", as: Data.self)) })

        #expect(error.serverMessage == message)
        #expect(error.description.hasSuffix("422 Unprocessable Content: \(message)"))
    }

    @Test("a non-JSON error body does not stop the status error")
    func htmlErrorBody() async throws {
        let client = APIClient(
            baseURL: itunes,
            transport: StubTransport().on(.get, "*", .text("<html>oops</html>", status: 502, contentType: "text/html"))
        )

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("x", as: Data.self)) })

        #expect(error.kind == .unacceptableStatus(.badGateway))
        #expect(error.serverMessage == nil)
        #expect(error.description == "GET https://itunes.apple.com/x → 502 Bad Gateway")
        #expect(error.response?.body == Data("<html>oops</html>".utf8))
    }

    @Test("a decoding failure names the type, the path, what was expected and what was found")
    func decodingDescription() async throws {
        let body =
            #"{"resultCount": 4, "results": [{"trackName": "a"}, {"trackName": "b"}, {"trackName": "c"},"#
            + #" {"trackName": "d", "trackPrice": "1.29"}]}"#
        let client = APIClient(baseURL: itunes, transport: StubTransport().on(.get, "*", .json(body)))

        let error = try #require(await #expect(throws: APIError.self) { try await client.send(SearchSongs(term: "x")) })

        #expect(error.kind == .decoding)
        #expect(error.underlyingError is DecodingError)
        #expect(
            error.description
                == "GET https://itunes.apple.com/search?term=x&media=music: decoding SearchPage failed at results[3].trackPrice: expected Double, found a string"
        )
    }

    @Test(
        "decoding messages for missing keys, nulls, empty and HTML bodies",
        arguments: [
            (#"{"results": []}"#, "decoding SearchPage failed: the key \"resultCount\" is missing"),
            (
                #"{"resultCount": null, "results": []}"#,
                "decoding SearchPage failed at resultCount: expected Int, found null"
            ),
            ("", "decoding SearchPage failed: the body is empty"),
            ("<!doctype html><p>hi", "decoding SearchPage failed: the body is not JSON (it starts like HTML or XML)"),
            (
                #"{"resultCount": true, "results": []}"#,
                "decoding SearchPage failed at resultCount: expected Int, found a boolean"
            ),
        ])
    func decodingMessages(body: String, expected: String) async throws {
        let client = APIClient(baseURL: itunes, transport: StubTransport().on(.get, "*", .json(body)))

        let error = try #require(await #expect(throws: APIError.self) { try await client.send(SearchSongs(term: "x")) })

        #expect(error.message == expected)
    }

    @Test("no secret reaches a description")
    func noSecretsInDescriptions() async throws {
        let secret = "sentinel-s3cr3t-value"
        let transport = StubTransport()
            .on(.get, "/status", .json(#"{"message": "denied"}"#, status: 401))
            .on(.get, "/broken", .failure(URLError(.networkConnectionLost)))
            .on(.get, "/decode", .json("[1]"))
        struct Failing: Middleware {
            let secret: String
            func intercept(
                _ request: HTTPRequest,
                next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
            ) async throws -> HTTPResponse {
                if request.url.path == "/middleware" {
                    throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "bad token \(secret)"])
                }
                return try await next(request)
            }
        }
        let client = APIClient(
            baseURL: URL(string: "https://u:\(secret)@api.example.com")!, transport: transport,
            middlewares: [Failing(secret: secret)])
        var headers: HTTPHeaders = [
            .authorization: "Bearer \(secret)", .cookie: "session=\(secret)", "X-Api-Key": secret,
        ]
        headers.add("X-Custom", secret, isSensitive: true)
        let query: Query = [
            .init(name: "api_key", value: secret), .init(name: "access_token", value: secret),
            .init(name: "signature", value: secret), .init(name: "term", value: "visible"),
        ]
        for path in ["status", "broken", "decode", "middleware", "bad\r\nheader"] {
            var requestHeaders = headers
            if path.contains("\r") { requestHeaders.add("X-Bad", "a\r\nInjected: \(secret)") }
            let error = try #require(
                await #expect(throws: APIError.self) {
                    try await client.send(
                        Request(path: "\(path)", query: query, headers: requestHeaders, as: SearchPage.self))
                }
            )
            #expect(!error.description.contains(secret), "\(path): \(error.description)")
            #expect(error.request.map { !$0.description.contains(secret) } ?? true)
            #expect(error.description.contains("term=visible"))
        }
    }

    @Test(
        "a middleware's own error is a middleware failure; a transport error passing through it stays a transport error"
    )
    func middlewareVersusTransport() async throws {
        struct Oops: Error {}
        struct Throwing: Middleware {
            func intercept(
                _ request: HTTPRequest,
                next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
            ) async throws -> HTTPResponse {
                if request.url.path == "/own" { throw Oops() }
                return try await next(request)
            }
        }
        let transport = StubTransport().on(.get, "/net", .failure(URLError(.cannotConnectToHost)))
        let client = APIClient(baseURL: itunes, transport: transport, middlewares: [Throwing()])

        let own = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("own", as: Data.self)) })
        let net = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("net", as: Data.self)) })

        #expect(own.kind == .middleware)
        #expect(own.underlyingError is Oops)
        #expect(own.description.contains("Throwing"))
        #expect(net.kind == .transport(.cannotConnect))
        #expect(net.underlyingError is URLError)
    }

    @Test("an unmatched stub request fails with its description")
    func unmatchedStub() async throws {
        let client = APIClient(baseURL: itunes, transport: StubTransport().on(.get, "/known", .text("")))

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("unknown", as: Data.self)) })

        #expect(error.kind == .transport(.other))
        #expect(error.underlyingError is StubTransport.UnmatchedRequest)
        #expect(error.message.contains("no rule for GET https://itunes.apple.com/unknown"))
        #expect(error.message.contains("rules: GET /known"))
    }
}
