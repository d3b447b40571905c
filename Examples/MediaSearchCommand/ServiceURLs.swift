import Foundation
import ITunesSearch
import TMDB

/// Where the two APIs and the poster images are: the live services unless the environment points
/// elsewhere (a mirror, a proxy, a local fake server):
/// `MEDIASEARCH_ITUNES_URL`, `MEDIASEARCH_TMDB_URL`, `MEDIASEARCH_IMAGE_URL`.
struct ServiceURLs: Equatable {
    var itunes = ITunesClient.baseURL
    var tmdb = TMDBClient.baseURL
    var images = TMDBClient.imageBaseURL

    static let variables = (
        itunes: "MEDIASEARCH_ITUNES_URL", tmdb: "MEDIASEARCH_TMDB_URL", images: "MEDIASEARCH_IMAGE_URL"
    )

    /// The live services.
    init() {}

    /// The URLs the environment sets, each an absolute http(s) URL.
    ///
    /// - Throws: ``UsageError`` naming the variable that is not one.
    init(environment: [String: String]) throws {
        itunes = try Self.url(environment, Self.variables.itunes) ?? itunes
        tmdb = try Self.url(environment, Self.variables.tmdb) ?? tmdb
        images = try Self.url(environment, Self.variables.images) ?? images
    }

    private static func url(_ environment: [String: String], _ name: String) throws -> URL? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host?.isEmpty == false
        else {
            throw UsageError(message: "\(name) must be an absolute http or https URL, not \"\(text)\"", topic: nil)
        }
        return url
    }
}
