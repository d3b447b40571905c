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
        var query: Query { ["term": term, "media": "music"] }
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
            // page → offset here, once
            case .search(let term, let page): ["term": term, "limit": "25", "offset": "\(25 * page)"]
            case .lookup(let id): ["id": "\(id)"]
            }
        }
    }

    struct SearchParameters: Encodable, Sendable {
        let term: String
        let media: String
        let limit: Int
        let offset: Int
    }

    struct Search: Endpoint {
        typealias Response = SearchPage
        let parameters: SearchParameters
        var path: Path { "search" }
        var query: Query { .encoding(parameters) }  // term=rock%20%26%20roll&media=music&limit=25&offset=50
    }

    struct Poster: Endpoint {
        typealias Response = Data
        let path: Path
        var timeout: Duration? { .seconds(30) }
        var acceptableStatuses: AcceptableStatuses { [200, 304] }
        var acceptableContentTypes: [String]? { ["image/*"] }  // an HTML error page fails clearly
        var requiresAuthentication: Bool { false }  // read by the auth middleware
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumAttempts: 5) }
        var cachePolicy: CachePolicy? { .timeToLive(.seconds(86_400)) }
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
            .on(
                .get, "/lookup", .json(#"{"errorMessage": "try later"}"#, status: .internalServerError),
                .json(#"{"resultCount": 0, "results": []}"#))
        let stubbed: any HTTPClient = APIClient(baseURL: URL(string: "https://itunes.apple.com")!, transport: transport)

        _ = try await stubbed.send(Readme.SearchSongs(term: "x"))
        let error = await #expect(throws: APIError.self) {
            try await stubbed.send(Readme.ITunes.lookup(id: 1), as: Readme.SearchPage.self)
        }
        #expect(error?.serverMessage == "try later")
        _ = try await stubbed.send(Readme.ITunes.lookup(id: 1), as: Readme.SearchPage.self)
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

    @Test("the Encodable, multipart and policy examples do what the README says")
    func requestBuildingExamples() async throws {
        let transport = StubTransport()
            .on(.get, "/search", .json(empty))
            .on(.post, "/photos", .status(.created))
            .on(.get, "/t/p/w500/a.jpg", .text("<html>", contentType: "text/html"))
        let client = APIClient(baseURL: URL(string: "https://itunes.apple.com")!, transport: transport)
        let parameters = Readme.SearchParameters(term: "rock & roll", media: "music", limit: 25, offset: 50)

        _ = try await client.send(Readme.Search(parameters: parameters))
        let encoder = QueryEncoder(arrays: .brackets, booleans: .numeric, keys: .convertToSnakeCase)
        let query: Query =
            .encoding(Readme.SearchParameters(term: "x", media: "music", limit: 25, offset: 0), with: encoder)
            + ["lang": "en_us"]
        var form = MultipartForm()
        form.append("A day at the beach", name: "caption")
        form.append(Data([1]), name: "thumb", filename: "thumb.png")
        let upload = Request(method: .post, path: "photos", body: .multipart(form), as: EmptyResponse.self)
        _ = try await client.send(upload)
        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(Readme.Poster(path: "t/p/w500/a.jpg")) }
        )

        #expect(
            transport.requests[0].url.absoluteString
                == "https://itunes.apple.com/search?term=rock%20%26%20roll&media=music&limit=25&offset=50"
        )
        #expect(try query.items().map(\.name) == ["term", "media", "limit", "offset", "lang"])
        #expect(transport.requests[1].headers[.contentType] == form.contentType)
        #expect(error.message == "expected image/* but the server sent text/html")
    }

    @Test("the middleware examples compile and the recommended stack answers")
    func middlewareExamples() async throws {
        let tokens = FixedCredential(.bearer("t0ken"))
        let key = "k3y"
        let secret = "s3cret"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = StubTransport().on(.get, "*", .json(#"{"ok": true}"#, headers: [.cacheControl: "max-age=60"]))
        let client = APIClient(
            baseURL: URL(string: "https://api.example.com")!,
            transport: transport,
            middlewares: [
                MetricsMiddleware { metrics in print(metrics.duration, metrics.attempts) },  // sees whole calls
                DeduplicationMiddleware(),  // identical calls share everything below
                RetryMiddleware(),  // each retry re-runs auth, cache and logging
                AuthMiddleware(provider: tokens),  // credentials on, refresh on 401, replay once
                ResponseCacheMiddleware(),  // sees the credentials, so never mixes users up
                LoggingMiddleware(sink: StandardErrorLogSink()),  // one line per exchange on the wire
            ]
        )
        let alternatives: [any Middleware] = [
            AuthMiddleware(credential: .apiKey(key, queryItem: "api_key")),
            AuthMiddleware(credential: .apiKey(key, header: "X-Api-Key")),
            AuthMiddleware(credential: .basic(username: "ada", password: secret)),
            AuthMiddleware(credential: .bearer(key)),
            RetryMiddleware(
                policy: RetryPolicy(maximumAttempts: 5, maximumRetryAfter: .seconds(30)),
                budget: RetryBudget(maximumTokens: 20)
            ),
            LoggingMiddleware(sink: StandardErrorLogSink(minimumLevel: .info)),
            ResponseCacheMiddleware(cache: try ResponseCache(configuration: .init(directory: folder))),
        ]

        let answer = try await client.response(for: .get("me", as: Data.self))

        #expect(answer.metrics.attempts == 1)
        #expect(transport.requests.first?.headers[.authorization] == "Bearer t0ken")
        #expect(transport.requests.first?.curlCommand().contains("'Authorization: REDACTED'") == true)
        let keyed = APIClient(
            baseURL: URL(string: "https://api.example.com")!, transport: transport, middlewares: [alternatives[0]])
        _ = try await keyed.send(.get("me", as: Data.self))
        #expect(transport.requests.last?.url.query == "api_key=k3y")
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("the transport examples build the configurations the README describes")
    func transports() {
        let url = URL(string: "https://api.example.com")!
        let transport = CurlTransport(
            configuration: .init(
                timeout: .seconds(10),
                maximumConnectionsPerHost: 8,
                tls: .init(
                    certificateAuthorities: URL(fileURLWithPath: "/etc/myapp/ca.pem"),
                    pinnedPublicKeyHashes: ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]
                )
            ))
        let client = APIClient(baseURL: url, transport: transport)
        let session = URLSessionTransport(
            configuration: .init(
                timeout: .seconds(10),
                redirects: RedirectPolicy(maximumRedirects: 5, sensitiveHeaders: ["X-Tenant"])
            ))

        #expect((client.transport as? CurlTransport)?.configuration.tls.pinnedPublicKeyHashes.count == 1)
        #expect(transport.configuration.maximumConnectionsPerHost == 8)
        #expect(transport.executor != nil || !CurlTransport.isAvailable)
        #expect(session.configuration.redirects.maximumRedirects == 5)
    }

    @Test("the services example builds the configuration the README describes")
    func servicesTransport() {
        let passphrase = "p12-passphrase"
        let proxyPassword = "proxy-password"
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(
                    clientCertificate: .pkcs12(URL(fileURLWithPath: "/etc/myapp/client.p12"), passphrase: passphrase)),
                proxy: URL(string: "socks5h://proxy.internal:1080"),
                proxyCredential: ProxyCredential(user: "svc-orders", password: proxyPassword),
                noProxy: ["metadata.internal"]
            ))

        #expect(transport.configuration.tls.clientCertificate?.format == .pkcs12)
        #expect(transport.configuration.noProxy == ["metadata.internal"])
        #expect(!"\(transport.configuration)".contains(proxyPassword))
        #expect(!"\(transport.configuration)".contains(passphrase))
    }
}
