import Courier
import CourierTesting
import Foundation
import Testing

/// The README's code samples, kept here so they always compile and do what the README says.
enum Readme {
    struct SearchPage: Decodable, Sendable {
        struct Track: Decodable, Sendable {
            let trackName: String?
            let artistName: String?
        }
        let resultCount: Int
        let results: [Track]
    }

    struct ITunesError: ServerErrorBody {
        let errorMessage: String
        var serverMessage: String? { errorMessage }
    }

    struct SearchSongs: Endpoint {
        typealias Response = SearchPage
        typealias ErrorBody = ITunesError  // optional: the server's error body, typed

        let term: String
        var path: Path { "search" }
        var query: Query { [.init(name: "term", value: term), .init(name: "media", value: "music")] }
    }

    enum ITunes: Route {
        case search(term: String, page: Int)
        case lookup(id: Int)

        var path: Path {
            switch self {
            case .search: "search"
            case .lookup: "lookup"
            }
        }

        var query: Query {
            switch self {
            case .search(let term, let page):
                [
                    .init(name: "term", value: term), .init(name: "limit", value: "25"),
                    .init(name: "offset", value: "\(25 * page)"),
                ]
            case .lookup(let id):
                [.init(name: "id", value: "\(id)")]
            }
        }
    }

    struct RequestID: Middleware {
        func intercept(
            _ request: HTTPRequest,
            next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            var request = request
            request.headers["X-Request-ID"] = UUID().uuidString
            return try await next(request)
        }
    }
}

@Suite("README examples")
struct ReadmeExamplesTests {
    let empty = #"{"resultCount": 0, "results": []}"#

    @Test("the quick start sends what it says")
    func quickStart() async throws {
        let transport = StubTransport()
            .on(.get, "/search", .json(empty))
            .on(.get, "/artwork.jpg", .response(body: Data([1, 2, 3])))
        let client = APIClient(
            baseURL: URL(string: "https://itunes.apple.com")!, transport: transport, middlewares: [Readme.RequestID()]
        )

        _ = try await client.send(Readme.SearchSongs(term: "rock & roll"))
        _ = try await client.send(Readme.ITunes.search(term: "jack johnson", page: 1), as: Readme.SearchPage.self)
        _ = try await client.send(
            .get("search", query: [.init(name: "term", value: "jack johnson")], as: Readme.SearchPage.self)
        )
        let bytes = try await client.send(.get("artwork.jpg", as: Data.self))

        #expect(bytes == Data([1, 2, 3]))
        let urls = transport.requests.map(\.url.absoluteString)
        #expect(urls[0] == "https://itunes.apple.com/search?term=rock%20%26%20roll&media=music")
        #expect(urls[1] == "https://itunes.apple.com/search?term=jack%20johnson&limit=25&offset=25")
        #expect(transport.requests.allSatisfy { $0.headers["X-Request-ID"] != nil })
    }

    @Test("the stub example records the query it shows")
    func stubExample() async throws {
        let transport = StubTransport()
            .on(.get, "/search", .json(empty))
            .on(.get, "/lookup", .status(.internalServerError), .json(empty))
        let stubbed: any HTTPClient = APIClient(baseURL: URL(string: "https://itunes.apple.com")!, transport: transport)

        _ = try await stubbed.send(Readme.SearchSongs(term: "x"))
        await #expect(throws: APIError.self) {
            try await stubbed.send(Readme.ITunes.lookup(id: 1), as: Readme.SearchPage.self)
        }
        _ = try await stubbed.send(Readme.ITunes.lookup(id: 1), as: Readme.SearchPage.self)

        #expect(transport.requests.first?.url.query == "term=x&media=music")
    }

    @Test("the error example reads the typed body")
    func errorExample() async throws {
        let transport = StubTransport().on(
            .get, "/search", .json(#"{"errorMessage": "Invalid value(s)"}"#, status: 400))
        let client = APIClient(baseURL: URL(string: "https://itunes.apple.com")!, transport: transport)

        var message = ""
        do {
            _ = try await client.send(Readme.SearchSongs(term: "x"))
        } catch let error as APIError {
            if case .unacceptableStatus(.badRequest) = error.kind {
                message = error.errorBody(as: Readme.ITunesError.self)?.errorMessage ?? ""
            }
        }
        #expect(message == "Invalid value(s)")
    }
}
