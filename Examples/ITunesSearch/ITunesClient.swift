import Courier
import Foundation

/// The iTunes Search API over any ``HTTPClient``: search, lookup and paging, 25 results at a time.
///
/// ```swift
/// let itunes = ITunesClient()
/// let first = try await itunes.search("jack johnson", media: .music)
/// for try await page in itunes.pages("jack johnson", media: .music).limited(toPages: 3) { … }
/// ```
public struct ITunesClient: Sendable {
    /// `https://itunes.apple.com`.
    public static let baseURL = URL(string: "https://itunes.apple.com")!
    /// How many results a page holds unless told otherwise: 25.
    public static let pageSize = 25

    /// What sends the requests.
    public let client: any HTTPClient

    /// Uses `client`, which must have ``baseURL`` as its base URL.
    public init(client: any HTTPClient) {
        self.client = client
    }

    /// Talks to the API at `baseURL` (the live one by default; a mirror or a local server for tests)
    /// through `transport`, with the given middlewares.
    public init(
        baseURL: URL = ITunesClient.baseURL, transport: any HTTPTransport = APIClient.defaultTransport(),
        middlewares: [any Middleware] = []
    ) {
        self.init(client: APIClient(baseURL: baseURL, transport: transport, middlewares: middlewares))
    }

    /// One page of results for `term`; `page` counts from 1.
    public func search(
        _ term: String, media: ITunesMedia = .all, page: Int = 1, limit: Int = pageSize, country: String? = nil
    ) async throws -> ITunesPage {
        try await client.send(
            ITunesSearchRequest(term: term, media: media, country: country, limit: limit, offset: (page - 1) * limit)
        )
    }

    /// Every page of results for `term`, fetched as they are iterated, ending at the first short page.
    public func pages(
        _ term: String, media: ITunesMedia = .all, limit: Int = pageSize, country: String? = nil
    ) -> PageSequence<ITunesPage> {
        client.pages(
            pageSize: limit, itemCount: { $0.results.count + $0.skippedCount },
            endpoint: { offset, limit in
                ITunesSearchRequest(term: term, media: media, country: country, limit: limit, offset: offset)
            }
        )
    }

    /// The items with these identifiers.
    public func lookup(_ key: ITunesLookupRequest.Key, entity: String? = nil) async throws -> ITunesPage {
        try await client.send(ITunesLookupRequest(key, entity: entity))
    }
}
