import Courier
import Foundation

/// The TMDB API v3: popular films, details, search and posters, authenticated by the auth
/// middleware and retried by the retry middleware when TMDB answers 429.
///
/// ```swift
/// let tmdb = try TMDBClient(environment: ProcessInfo.processInfo.environment)   // TMDB_API_KEY or TMDB_ACCESS_TOKEN
/// let popular = try await tmdb.popular(page: 1)
/// let poster = tmdb.posterURL(popular.results[0].posterPath, size: .w500)
/// ```
public struct TMDBClient: Sendable {
    /// How requests are authenticated.
    public enum Authentication: Sendable, Hashable {
        /// A v3 API key, sent as the `api_key` query item.
        case apiKey(String)
        /// A v4 read access token, sent as `Authorization: Bearer …`.
        case accessToken(String)

        var credential: Credential {
            switch self {
            case .apiKey(let key): .apiKey(key, queryItem: "api_key")
            case .accessToken(let token): .bearer(token)
            }
        }
    }

    /// Poster widths TMDB serves.
    public enum PosterSize: String, CaseIterable, Sendable {
        /// 92 pixels wide.
        case w92
        /// 154 pixels wide.
        case w154
        /// 185 pixels wide.
        case w185
        /// 342 pixels wide.
        case w342
        /// 500 pixels wide.
        case w500
        /// 780 pixels wide.
        case w780
        /// As uploaded.
        case original
    }

    /// Thrown by ``init(environment:transport:middlewares:)`` when neither variable is set.
    public struct MissingCredentials: Error, CustomStringConvertible {
        /// What to do.
        public var description: String {
            "TMDB needs an API key: set TMDB_API_KEY (v3 key) or TMDB_ACCESS_TOKEN (v4 read access token)"
        }
    }

    /// `https://api.themoviedb.org/3`.
    public static let baseURL = URL(string: "https://api.themoviedb.org/3")!
    /// `https://image.tmdb.org/t/p/`.
    public static let imageBaseURL = URL(string: "https://image.tmdb.org/t/p/")!

    /// What sends the requests.
    public let client: APIClient
    /// Where poster images are fetched from (``imageBaseURL`` unless given another).
    public let images: URL

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - authentication: The API key or access token.
    ///   - baseURL: The API (``baseURL`` by default; a mirror or a local server for tests).
    ///   - imageBaseURL: Where posters come from (``imageBaseURL`` by default).
    ///   - transport: What performs the exchanges.
    ///   - middlewares: More middlewares, placed before the retry and auth middlewares (logging
    ///     should go last: pass it in `innerMiddlewares`).
    ///   - innerMiddlewares: Middlewares placed after auth, nearest the transport.
    public init(
        authentication: Authentication,
        baseURL: URL = TMDBClient.baseURL,
        imageBaseURL: URL = TMDBClient.imageBaseURL,
        transport: any HTTPTransport = APIClient.defaultTransport(),
        middlewares: [any Middleware] = [],
        innerMiddlewares: [any Middleware] = []
    ) {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let retry = RetryMiddleware(policy: RetryPolicy(maximumAttempts: 3, maximumRetryAfter: .seconds(10)))
        images = imageBaseURL
        client = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: middlewares + [retry, AuthMiddleware(credential: authentication.credential)]
                + innerMiddlewares,
            decoder: decoder
        )
    }

    /// Creates a client authenticated from `TMDB_ACCESS_TOKEN` or `TMDB_API_KEY`.
    ///
    /// - Throws: ``MissingCredentials`` when neither is set.
    public init(
        environment: [String: String],
        baseURL: URL = TMDBClient.baseURL,
        imageBaseURL: URL = TMDBClient.imageBaseURL,
        transport: any HTTPTransport = APIClient.defaultTransport(),
        middlewares: [any Middleware] = [],
        innerMiddlewares: [any Middleware] = []
    ) throws {
        let token = environment["TMDB_ACCESS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let key = environment["TMDB_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        guard let authentication = token.map(Authentication.accessToken) ?? key.map(Authentication.apiKey) else {
            throw MissingCredentials()
        }
        self.init(
            authentication: authentication, baseURL: baseURL, imageBaseURL: imageBaseURL, transport: transport,
            middlewares: middlewares, innerMiddlewares: innerMiddlewares
        )
    }

    /// A page of popular films.
    public func popular(page: Int = 1, language: String? = nil) async throws -> MoviePage {
        try await client.send(PopularMoviesRequest(page: page, language: language))
    }

    /// Every page of popular films, as they are iterated.
    public func popularPages(language: String? = nil) -> PageSequence<MoviePage> {
        client.pages(
            totalPages: { min($0.totalPages, 500) }, endpoint: { PopularMoviesRequest(page: $0, language: language) }
        )
    }

    /// A film's details, director included.
    public func movie(id: Int) async throws -> MovieDetails {
        try await client.send(MovieDetailsRequest(id: id))
    }

    /// Films whose title matches `text`.
    public func search(_ text: String, page: Int = 1) async throws -> MoviePage {
        try await client.send(MovieSearchRequest(text, page: page))
    }

    /// The image configuration.
    public func configuration() async throws -> TMDBConfiguration {
        try await client.send(TMDBConfigurationRequest())
    }

    /// The URL of a poster at a size, or `nil` when the film has none.
    public func posterURL(_ path: String?, size: PosterSize = .w500) -> URL? {
        Self.posterURL(path, size: size, imageBaseURL: images)
    }

    /// The URL of a poster at a size under `imageBaseURL`, or `nil` when the film has none.
    public static func posterURL(_ path: String?, size: PosterSize = .w500, imageBaseURL: URL = imageBaseURL)
        -> URL?
    {
        guard let path, !path.isEmpty else { return nil }
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !trimmed.contains(".."), !trimmed.contains("/") else { return nil }
        return imageBaseURL.appendingPathComponent(size.rawValue).appendingPathComponent(trimmed)
    }
}
