import Courier
import CourierTesting
import Foundation
import Testing

/// The classic router: a paged search, a GET with a path parameter, a POST with a JSON body and a
/// call that needs a bearer token, with page → offset arithmetic in the route.
private enum Catalog: Route {
    case search(term: String, page: Int, media: String)
    case album(id: Int)
    case review(albumID: Int, text: String)
    case library(token: String)

    static let pageSize = 25

    var method: HTTPMethod {
        if case .review = self { return .post }
        return .get
    }

    var path: Path {
        switch self {
        case .search: "search"
        case .album(let id): "albums/\(id)"
        case .review(let albumID, _): "albums/\(albumID)/reviews"
        case .library: "me/library"
        }
    }

    var query: Query {
        guard case .search(let term, let page, let media) = self else { return [] }
        return ["term": term, "media": media, "limit": "\(Self.pageSize)", "offset": "\(Self.pageSize * page)"]
    }

    var headers: HTTPHeaders {
        guard case .library(let token) = self else { return [:] }
        return [.authorization: "Bearer \(token)"]
    }

    var body: RequestBody? {
        guard case .review(_, let text) = self else { return nil }
        return .json(["text": text])
    }

    var requiresAuthentication: Bool {
        if case .library = self { return true }
        return false
    }

    var retryPolicy: RetryPolicy? {
        if case .review = self { return .never }
        return nil
    }
}

@Suite("Routes and per-route policies")
struct RoutePolicyTests {
    @Test("the classic router produces exact URLs, methods, headers and bodies")
    func classicRouter() async throws {
        let transport = StubTransport().on(.get, "*", .json("{}")).on(.post, "*", .status(.created))
        let client = APIClient(baseURL: URL(string: "https://music.example.com/api")!, transport: transport)

        _ = try await client.send(Catalog.search(term: "rock & roll", page: 2, media: "music"), as: Data.self)
        _ = try await client.send(Catalog.album(id: 42), as: Data.self)
        _ = try await client.send(Catalog.review(albumID: 42, text: "Great"), as: EmptyResponse.self)
        _ = try await client.send(Catalog.library(token: "t0k"), as: Data.self)

        let requests = transport.requests
        #expect(
            requests.map { "\($0.method) \($0.url.absoluteString)" } == [
                "GET https://music.example.com/api/search?term=rock%20%26%20roll&media=music&limit=25&offset=50",
                "GET https://music.example.com/api/albums/42",
                "POST https://music.example.com/api/albums/42/reviews",
                "GET https://music.example.com/api/me/library",
            ]
        )
        #expect(requests[2].body == .data(Data(#"{"text":"Great"}"#.utf8)))
        #expect(requests[2].headers[.contentType] == "application/json")
        #expect(requests[3].headers[.authorization] == "Bearer t0k")
        #expect(requests.map(\.policies.requiresAuthentication) == [false, false, false, true])
        #expect(requests[2].policies.retry == .never)
        #expect(requests[0].policies.retry == nil)
    }

    @Test("acceptable statuses are per route")
    func statuses() async throws {
        struct NotModifiedIsFine: Endpoint {
            typealias Response = Data
            var path: Path { "etag" }
            var acceptableStatuses: AcceptableStatuses { [200, 304] }
        }
        let transport = StubTransport().on(.get, "/v1/etag", .status(.notModified), .status(.created))
        let client = APIClient(baseURL: baseURL, transport: transport)

        _ = try await client.send(NotModifiedIsFine())
        let error = try #require(await #expect(throws: APIError.self) { try await client.send(NotModifiedIsFine()) })

        #expect(error.kind == .unacceptableStatus(.created))
    }

    @Test(
        "acceptable content types are checked before decoding",
        arguments: [
            ("application/json; charset=utf-8", true), ("application/vnd.api+json", true), ("text/html", false),
            (nil, false),
        ])
    func contentTypes(received: String?, accepted: Bool) async throws {
        struct Strict: Endpoint {
            typealias Response = [String: Int]
            var path: Path { "data" }
            var acceptableContentTypes: [String]? { ["application/json", "application/*+json"] }
        }
        let headers: HTTPHeaders = received.map { [.contentType: $0] } ?? [:]
        let transport = StubTransport().on(.get, "*", .response(headers: headers, body: Data(#"{"a": 1}"#.utf8)))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let result = await Result { try await client.send(Strict()) }

        if accepted {
            #expect(try result.get() == ["a": 1])
        } else {
            let error = try #require(result.failure as? APIError)
            #expect(error.kind == .unacceptableContentType(received))
            #expect(error.message.hasPrefix("expected application/json or application/*+json but the server sent"))
        }
    }

    @Test("retry and cache policies reach the middlewares on the request")
    func policiesReachMiddlewares() async throws {
        struct Cached: Endpoint {
            typealias Response = Data
            var path: Path { "config" }
            var cachePolicy: CachePolicy? { .timeToLive(.seconds(300)) }
            var retryPolicy: RetryPolicy? { RetryPolicy(maximumAttempts: 5) }
        }
        let transport = StubTransport().on(.get, "*", .text(""))
        _ = try await APIClient(baseURL: baseURL, transport: transport).send(Cached())

        let policies = try #require(transport.requests.first?.policies)
        #expect(policies.cache == .timeToLive(.seconds(300)))
        #expect(policies.retry?.maximumAttempts == 5)
        #expect(policies.requiresAuthentication)
    }

    @Test("retry policies only allow idempotent methods unless there is an Idempotency-Key")
    func idempotency() {
        let url = URL(string: "https://example.com")!
        let policy = RetryPolicy.default
        #expect(policy.allowsRetry(of: HTTPRequest(method: .get, url: url)))
        #expect(policy.allowsRetry(of: HTTPRequest(method: .put, url: url)))
        #expect(!policy.allowsRetry(of: HTTPRequest(method: .post, url: url)))
        #expect(policy.allowsRetry(of: HTTPRequest(method: .post, url: url, headers: [.idempotencyKey: "k"])))
        #expect(!RetryPolicy.never.allowsRetry(of: HTTPRequest(method: .get, url: url)))
    }
}
