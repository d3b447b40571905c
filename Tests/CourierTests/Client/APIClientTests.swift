import Courier
import CourierTesting
import Foundation
import Testing

@Suite("APIClient")
struct APIClientTests {
    @Test("an endpoint type is sent and its response decoded")
    func endpointType() async throws {
        let transport = StubTransport().on(.get, "/v1/search", .json(samplePage))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let page = try await client.send(SearchSongs(term: "jack johnson"))

        #expect(page == samplePage)
        let request = try #require(transport.requests.first)
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://api.example.com/v1/search?term=jack%20johnson&media=music")
        #expect(request.headers[.accept] == "application/json")
        #expect(request.headers[.userAgent]?.hasPrefix("Courier/") == true)
        #expect(request.body == nil)
    }

    @Test("an inline request names its response type")
    func inlineRequest() async throws {
        let transport = StubTransport().on(.get, "/v1/search", .json(samplePage))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let page = try await client.send(.get("search", query: [.init(name: "term", value: "x")], as: SearchPage.self))

        #expect(page == samplePage)
    }

    @Test("a POST with a JSON body sets Content-Type and encodes with the client's encoder")
    func jsonBody() async throws {
        struct NewComment: Codable, Sendable { let postID: Int }
        let transport = StubTransport().on(.post, "/v1/comments", .status(.created, body: "{}"))
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let client = APIClient(baseURL: baseURL, transport: transport, encoder: encoder)

        _ = try await client.send(.post("comments", body: NewComment(postID: 7), as: EmptyResponse.self))

        let request = try #require(transport.requests.first)
        #expect(request.headers[.contentType] == "application/json")
        #expect(request.body == .data(Data(#"{"post_id":7}"#.utf8)))
    }

    @Test("route headers replace the client's defaults of the same name")
    func headerPrecedence() async throws {
        let transport = StubTransport().on(.get, "*", .text("ok"))
        let client = APIClient(
            baseURL: baseURL, transport: transport, headers: [.accept: "application/json", "X-App": "1"])

        _ = try await client.send(Request(path: "x", headers: [.accept: "text/plain"], as: String.self))

        let headers = try #require(transport.requests.first?.headers)
        #expect(headers.values(for: .accept) == ["text/plain"])
        #expect(headers["x-app"] == "1")
    }

    @Test("a Data response is the raw body, never JSON-decoded")
    func dataResponse() async throws {
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        let transport = StubTransport().on(
            .get, "*", .response(headers: [.contentType: "application/json"], body: bytes))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let data = try await client.send(.get("avatar.png", as: Data.self))

        #expect(data == bytes)
    }

    @Test("a String response uses the charset of Content-Type")
    func stringResponse() async throws {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])  // "café" in ISO-8859-1
        let transport = StubTransport()
            .on(.get, "/v1/latin", .response(headers: [.contentType: "text/plain; charset=ISO-8859-1"], body: latin1))
            .on(.get, "/v1/bad", .response(headers: [.contentType: "text/plain"], body: Data([0xFF, 0xFE, 0xFD])))
        let client = APIClient(baseURL: baseURL, transport: transport)

        #expect(try await client.send(.get("latin", as: String.self)) == "café")
        let error = await #expect(throws: APIError.self) { try await client.send(.get("bad", as: String.self)) }
        #expect(error?.kind == .decoding)
    }

    @Test("EmptyResponse accepts 204 and HEAD")
    func emptyResponses() async throws {
        let transport = StubTransport()
            .on(.delete, "/v1/items/1", .status(.noContent))
            .on(.head, "/v1/items/1", .response(headers: [.contentLength: "120"]))
        let client = APIClient(baseURL: baseURL, transport: transport)

        #expect(try await client.send(.delete("items/1")) == EmptyResponse())
        let head = try await client.response(for: .head("items/1"))
        #expect(head.response.headers[.contentLength] == "120")
    }

    @Test("response(for:) returns the HTTP response, the sent request, attempts and elapsed time")
    func responseMetadata() async throws {
        let transport = StubTransport().on(
            .get, "*", .json(samplePage, headers: ["X-Rate": "19"]).delayed(by: .milliseconds(20)))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let result = try await client.response(for: SearchSongs(term: "x"))

        #expect(result.value == samplePage)
        #expect(result.response.status == .ok)
        #expect(result.response.headers["x-rate"] == "19")
        #expect(result.request.url.path == "/v1/search")
        #expect(result.attempts == 1)
        #expect(result.elapsed >= .milliseconds(20))
    }

    @Test("a router enum is sent with send(_:as:)")
    func routerEnum() async throws {
        enum Store: Route {
            case search(term: String, page: Int)
            case app(id: String)
            case rate(id: String, stars: Int)

            var method: HTTPMethod {
                switch self {
                case .rate: .post
                default: .get
                }
            }
            var path: Path {
                switch self {
                case .search: "search"
                case .app(let id), .rate(let id, _): "apps/\(id)"
                }
            }
            var query: Query {
                switch self {
                case .search(let term, let page):
                    [.init(name: "term", value: term), .init(name: "offset", value: "\(page * 25)")]
                default: []
                }
            }
            var body: RequestBody? {
                switch self {
                case .rate(_, let stars): .json(["stars": stars])
                default: nil
                }
            }
        }
        let transport = StubTransport()
            .on(.get, "/v1/search", .json(samplePage))
            .on(.get, "/v1/apps/a%2Fb", .json(#"{"resultCount": 0, "results": []}"#))
            .on(.post, "/v1/apps/a%2Fb", .status(.noContent))
            .on(.get, "/v1/apps/a/b", .status(.internalServerError))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let page = try await client.send(Store.search(term: "rock & roll", page: 2), as: SearchPage.self)
        _ = try await client.send(Store.app(id: "a/b"), as: SearchPage.self)
        _ = try await client.send(Store.rate(id: "a/b", stars: 5), as: EmptyResponse.self)

        #expect(page == samplePage)
        let urls = transport.requests.map(\.url.absoluteString)
        #expect(
            urls == [
                "https://api.example.com/v1/search?term=rock%20%26%20roll&offset=50",
                "https://api.example.com/v1/apps/a%2Fb",
                "https://api.example.com/v1/apps/a%2Fb",
            ]
        )
        #expect(transport.requests.last?.body == .data(Data(#"{"stars":5}"#.utf8)))
    }
}
