import Courier
import Foundation

/// `GET /movie/popular`: the films people watch now, 20 a page.
public struct PopularMoviesRequest: Endpoint {
    /// A page of films.
    public typealias Response = MoviePage
    /// TMDB's error body.
    public typealias ErrorBody = TMDBError

    /// The page, 1–500.
    public var page: Int
    /// The language of titles and summaries, such as `en-US`.
    public var language: String?

    /// Creates the request.
    public init(page: Int = 1, language: String? = nil) {
        self.page = page
        self.language = language
    }

    /// `movie/popular`.
    public var path: Path { "movie/popular" }
    /// The page and language.
    public var query: Query {
        var items = [URLQueryItem(name: "page", value: String(page))]
        if let language { items.append(URLQueryItem(name: "language", value: language)) }
        return Query(items)
    }
}

/// `GET /movie/{id}`, with the credits appended so the director is known.
public struct MovieDetailsRequest: Endpoint {
    /// The details.
    public typealias Response = MovieDetails
    /// TMDB's error body (`status_code` 34 for an unknown film).
    public typealias ErrorBody = TMDBError

    /// The film's identifier.
    public var id: Int

    /// Creates the request.
    public init(id: Int) {
        self.id = id
    }

    /// `movie/{id}`.
    public var path: Path { "movie/\(id)" }
    /// `append_to_response=credits`.
    public var query: Query { ["append_to_response": "credits"] }
}

/// `GET /search/movie`: films whose title matches a query.
public struct MovieSearchRequest: Endpoint {
    /// A page of films.
    public typealias Response = MoviePage
    /// TMDB's error body.
    public typealias ErrorBody = TMDBError

    /// The words to search for.
    public var text: String
    /// The page, from 1.
    public var page: Int

    /// Creates the request.
    public init(_ text: String, page: Int = 1) {
        self.text = text
        self.page = page
    }

    /// `search/movie`.
    public var path: Path { "search/movie" }
    /// The query and page.
    public var query: Query { ["query": text, "page": String(page)] }
}

/// `GET /configuration`: image base URLs and sizes. It rarely changes, so it is cached for a day.
public struct TMDBConfigurationRequest: Endpoint {
    /// The configuration.
    public typealias Response = TMDBConfiguration
    /// TMDB's error body.
    public typealias ErrorBody = TMDBError

    /// Creates the request.
    public init() {}

    /// `configuration`.
    public var path: Path { "configuration" }
    /// A day, whatever the headers say; the API key in the query is not shared with anyone else.
    public var cachePolicy: CachePolicy? { .timeToLive(.seconds(86_400), storesAuthenticatedResponses: true) }
}

/// TMDB's error body: `{"status_code": 7, "status_message": "Invalid API key: …", "success": false}`.
public struct TMDBError: ServerErrorBody, Hashable {
    /// TMDB's own code: 7 invalid key, 34 not found, 25 rate limited, …
    public let statusCode: Int
    /// TMDB's explanation.
    public let statusMessage: String
    /// Always `false` in an error.
    public let success: Bool?

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes `status_code` and `status_message`, whether or not the decoder converts snake case.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func value<T: Decodable>(_ snake: String, _ camel: String) throws -> T {
            if let value = try container.decodeIfPresent(T.self, forKey: Key(stringValue: camel)) { return value }
            return try container.decode(T.self, forKey: Key(stringValue: snake))
        }
        statusCode = try value("status_code", "statusCode")
        statusMessage = try value("status_message", "statusMessage")
        success = try? container.decodeIfPresent(Bool.self, forKey: Key(stringValue: "success"))
    }

    /// The explanation, for ``APIError``'s description.
    public var serverMessage: String? { statusMessage }
}
