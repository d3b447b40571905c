import Courier
import CourierTesting
import Foundation
import ITunesSearch
import TMDB
import Testing

@Suite("iTunes and TMDB clients")
struct ExampleClientTests {
    @Test("search and lookup send the API's parameters")
    func itunesRequests() async throws {
        let transport = StubTransport().on(.get, "*", .json(#"{"resultCount": 0, "results": []}"#))
        let itunes = ITunesClient(transport: transport)

        _ = try await itunes.search("rock & roll", media: .musicVideos, page: 3, limit: 10, country: "GB")
        _ = try await itunes.client.send(
            ITunesSearchRequest(term: "x", media: .apps, entity: "software", language: "ja_jp", allowsExplicit: false))
        _ = try await itunes.lookup(.ids([909253, 1_469_577_723]), entity: "album")
        _ = try await itunes.lookup(.isbn("9780441172719"))

        let urls = transport.requests.map(\.url.absoluteString)
        #expect(
            urls[0]
                == "https://itunes.apple.com/search?term=rock%20%26%20roll&media=musicVideo&limit=10&offset=20&country=GB"
        )
        #expect(
            urls[1]
                == "https://itunes.apple.com/search?term=x&media=software&limit=25&entity=software&lang=ja_jp&explicit=No"
        )
        #expect(urls[2] == "https://itunes.apple.com/lookup?id=909253%2C1469577723&entity=album")
        #expect(urls[3] == "https://itunes.apple.com/lookup?isbn=9780441172719")
    }

    @Test("the iTunes error body is typed on the endpoint")
    func itunesError() async throws {
        let body = #"{"errorMessage": "Invalid value(s) for key(s): [mediaType]", "queryParameters": {"media": "x"}}"#
        let transport = StubTransport().on(.get, "*", .json(body, status: .badRequest))

        let error = try #require(
            await #expect(throws: APIError.self) { try await ITunesClient(transport: transport).search("x") })

        #expect(error.errorBody(as: ITunesError.self)?.queryParameters == ["media": "x"])
        #expect(error.description.hasSuffix("→ 400 Bad Request: Invalid value(s) for key(s): [mediaType]"))
    }

    @Test("TMDB authenticates from the environment: the access token wins over the API key")
    func tmdbAuthentication() async throws {
        let transport = StubTransport().on(
            .get, "*", .json(#"{"page": 1, "results": [], "total_pages": 1, "total_results": 0}"#))

        _ = try await TMDBClient(environment: ["TMDB_API_KEY": "k3y"], transport: transport).popular()
        _ = try await TMDBClient(
            environment: ["TMDB_API_KEY": "k3y", "TMDB_ACCESS_TOKEN": "t0ken"], transport: transport
        ).popular()

        #expect(transport.requests[0].url.query == "page=1&api_key=k3y")
        #expect(transport.requests[0].headers[.authorization] == nil)
        #expect(transport.requests[1].headers[.authorization] == "Bearer t0ken")
        #expect(throws: TMDBClient.MissingCredentials.self) { try TMDBClient(environment: ["TMDB_API_KEY": ""]) }
    }

    @Test("TMDB's error body is typed, and a 429 is retried by the retry middleware")
    func tmdbErrorsAndRetry() async throws {
        let rejected =
            #"{"status_code": 7, "status_message": "Invalid API key: You must be granted a valid key.", "success": false}"#
        let transport = StubTransport()
            .on(.get, "/3/movie/popular", .json(rejected, status: .unauthorized))
            .on(
                .get, "/3/movie/550", .status(.tooManyRequests, headers: [.retryAfter: "0"]),
                .json(#"{"id": 550, "title": "Fight Club"}"#))
        let tmdb = TMDBClient(authentication: .apiKey("bad"), transport: transport)

        let error = try #require(await #expect(throws: APIError.self) { try await tmdb.popular() })
        let movie = try await tmdb.movie(id: 550)

        #expect(error.errorBody(as: TMDBError.self)?.statusCode == 7)
        #expect(error.serverMessage == "Invalid API key: You must be granted a valid key.")
        #expect(movie.title == "Fight Club")
        #expect(transport.requests(to: "/3/movie/550").count == 2)
    }

    @Test("poster URLs by size; a poster path cannot leave the image folder")
    func posterURLs() {
        #expect(
            TMDBClient.posterURL("/abc.jpg", size: .w500)?.absoluteString == "https://image.tmdb.org/t/p/w500/abc.jpg")
        #expect(TMDBClient.posterURL("/../../x.jpg") == nil)
        #expect(TMDBClient.posterURL("") == nil && TMDBClient.posterURL(nil) == nil)
    }
}
