import Courier
import Foundation

/// `GET /search`: items matching a term, one page at a time.
///
/// ```swift
/// let page = try await client.send(ITunesSearchRequest(term: "jack johnson", media: .music, limit: 25))
/// ```
public struct ITunesSearchRequest: Endpoint {
    /// A page of results.
    public typealias Response = ITunesPage
    /// The API's error body, `{"errorMessage": …}`.
    public typealias ErrorBody = ITunesError

    /// What to search for; spaces and symbols are encoded for you.
    public var term: String
    /// Which kind of media.
    public var media: ITunesMedia
    /// The kind of result within the media (`song`, `album`, `musicArtist`, `ebook`, …), if narrowed.
    public var entity: String?
    /// The two-letter store country; the API defaults to `US`.
    public var country: String?
    /// How many results, 1–200.
    public var limit: Int
    /// How many results to skip.
    public var offset: Int
    /// The language of the results, such as `en_us` or `ja_jp`.
    public var language: String?
    /// Whether explicit content is included; the API includes it unless told otherwise.
    public var allowsExplicit: Bool?

    /// Creates a search.
    public init(
        term: String,
        media: ITunesMedia = .all,
        entity: String? = nil,
        country: String? = nil,
        limit: Int = ITunesClient.pageSize,
        offset: Int = 0,
        language: String? = nil,
        allowsExplicit: Bool? = nil
    ) {
        self.term = term
        self.media = media
        self.entity = entity
        self.country = country
        self.limit = limit
        self.offset = offset
        self.language = language
        self.allowsExplicit = allowsExplicit
    }

    /// `search`.
    public var path: Path { "search" }

    /// The search's parameters; optional ones only when set.
    public var query: Query {
        var items: [URLQueryItem] = [
            URLQueryItem(name: "term", value: term), URLQueryItem(name: "media", value: media.apiValue),
            URLQueryItem(name: "limit", value: String(limit)),
        ]
        if offset > 0 { items.append(URLQueryItem(name: "offset", value: String(offset))) }
        if let entity { items.append(URLQueryItem(name: "entity", value: entity)) }
        if let country { items.append(URLQueryItem(name: "country", value: country)) }
        if let language { items.append(URLQueryItem(name: "lang", value: language)) }
        if let allowsExplicit { items.append(URLQueryItem(name: "explicit", value: allowsExplicit ? "Yes" : "No")) }
        return Query(items)
    }

    /// The API serves JSON as `text/javascript`; both are accepted.
    public var acceptableContentTypes: [String]? { ["application/json", "text/javascript"] }
}

/// `GET /lookup`: items by their identifiers.
///
/// ```swift
/// let album = try await client.send(ITunesLookupRequest(.ids([909253]), entity: "album"))
/// ```
public struct ITunesLookupRequest: Endpoint {
    /// The items found.
    public typealias Response = ITunesPage
    /// The API's error body.
    public typealias ErrorBody = ITunesError

    /// What to look up by.
    public enum Key: Sendable, Hashable {
        /// iTunes identifiers (track, collection or artist ids).
        case ids([Int])
        /// A UPC, for albums.
        case upc(String)
        /// An ISBN, for books.
        case isbn(String)
        /// AMG artist identifiers.
        case amgArtistIDs([Int])
    }

    /// What to look up by.
    public var key: Key
    /// The related items to include (`song`, `album`), if any.
    public var entity: String?
    /// How many related items, if limited.
    public var limit: Int?
    /// The two-letter store country.
    public var country: String?

    /// Creates a lookup.
    public init(_ key: Key, entity: String? = nil, limit: Int? = nil, country: String? = nil) {
        self.key = key
        self.entity = entity
        self.limit = limit
        self.country = country
    }

    /// `lookup`.
    public var path: Path { "lookup" }

    /// The key, then the optional parameters.
    public var query: Query {
        var items: [URLQueryItem]
        switch key {
        case .ids(let ids): items = [URLQueryItem(name: "id", value: ids.map(String.init).joined(separator: ","))]
        case .upc(let upc): items = [URLQueryItem(name: "upc", value: upc)]
        case .isbn(let isbn): items = [URLQueryItem(name: "isbn", value: isbn)]
        case .amgArtistIDs(let ids):
            items = [URLQueryItem(name: "amgArtistId", value: ids.map(String.init).joined(separator: ","))]
        }
        if let entity { items.append(URLQueryItem(name: "entity", value: entity)) }
        if let limit { items.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let country { items.append(URLQueryItem(name: "country", value: country)) }
        return Query(items)
    }

    /// The API serves JSON as `text/javascript`; both are accepted.
    public var acceptableContentTypes: [String]? { ["application/json", "text/javascript"] }
}
