import Foundation

/// One result of the iTunes Search API: a song, album, artist, film, app, book, podcast, episode…
///
/// Every field is optional, as the API leaves out what does not apply, and a field of an
/// unexpected type is read as missing rather than failing the item.
public struct ITunesItem: Sendable, Hashable, Codable {
    /// What the result describes, as the API's `wrapperType` says.
    public enum WrapperType: Sendable, Hashable {
        /// A track: a song, film, episode, music video, podcast.
        case track
        /// An album or other collection.
        case collection
        /// An artist.
        case artist
        /// An audiobook.
        case audiobook
        /// An app.
        case software
        /// A value this code does not know yet.
        case other(String)

        init(_ value: String) {
            switch value {
            case "track": self = .track
            case "collection": self = .collection
            case "artist": self = .artist
            case "audiobook": self = .audiobook
            case "software": self = .software
            default: self = .other(value)
            }
        }
    }

    /// `wrapperType`, if present.
    public var wrapperType: WrapperType? { wrapperTypeValue.map(WrapperType.init) }
    /// `kind` as the API spells it: `song`, `feature-movie`, `music-video`, `podcast`, `tv-episode`,
    /// `software`, `ebook`, or anything newer.
    public var kind: String?

    /// `trackId`.
    public var trackID: Int?
    /// `collectionId`.
    public var collectionID: Int?
    /// `artistId`.
    public var artistID: Int?
    /// `trackName`.
    public var trackName: String?
    /// `collectionName`.
    public var collectionName: String?
    /// `artistName`: the artist, director, author or developer.
    public var artistName: String?
    /// `sellerName`, for apps.
    public var sellerName: String?
    /// `primaryGenreName`.
    public var genre: String?
    /// `releaseDate` as sent (ISO 8601).
    public var releaseDate: String?
    /// `trackPrice`.
    public var trackPrice: Double?
    /// `collectionPrice`.
    public var collectionPrice: Double?
    /// `price` (apps, books, audiobooks).
    public var price: Double?
    /// `formattedPrice` (apps, books), such as `Free` or `$4.99`.
    public var formattedPrice: String?
    /// `currency`, such as `USD`.
    public var currency: String?
    /// `trackTimeMillis`.
    public var durationMilliseconds: Int?
    /// `artworkUrl100`.
    public var artworkURL: URL?
    /// `previewUrl`.
    public var previewURL: URL?
    /// `trackViewUrl` or `collectionViewUrl`.
    public var storeURL: URL?
    /// `averageUserRating` (apps, books).
    public var averageUserRating: Double?
    /// `version` (apps).
    public var version: String?
    /// `description` (apps, books).
    public var summary: String?

    private var wrapperTypeValue: String?

    /// Creates an item; every field is optional.
    public init(
        wrapperType: String? = nil, kind: String? = nil, trackID: Int? = nil, collectionID: Int? = nil,
        artistID: Int? = nil, trackName: String? = nil, collectionName: String? = nil, artistName: String? = nil,
        releaseDate: String? = nil, trackPrice: Double? = nil, currency: String? = nil
    ) {
        self.wrapperTypeValue = wrapperType
        self.kind = kind
        self.trackID = trackID
        self.collectionID = collectionID
        self.artistID = artistID
        self.trackName = trackName
        self.collectionName = collectionName
        self.artistName = artistName
        self.releaseDate = releaseDate
        self.trackPrice = trackPrice
        self.currency = currency
    }

    private enum CodingKeys: String, CodingKey {
        case wrapperTypeValue = "wrapperType"
        case kind, trackName, collectionName, artistName, sellerName, releaseDate, trackPrice, collectionPrice
        case price, formattedPrice, currency, averageUserRating, version
        case trackID = "trackId"
        case collectionID = "collectionId"
        case artistID = "artistId"
        case genre = "primaryGenreName"
        case durationMilliseconds = "trackTimeMillis"
        case artworkURL = "artworkUrl100"
        case previewURL = "previewUrl"
        case storeURL = "trackViewUrl"
        case collectionViewURL = "collectionViewUrl"
        case summary = "description"
    }

    /// Decodes leniently: a missing field, or one of an unexpected type, is `nil`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func field<T: Decodable>(_ key: CodingKeys) -> T? {
            (try? container.decodeIfPresent(T.self, forKey: key)) ?? nil
        }
        wrapperTypeValue = field(.wrapperTypeValue)
        kind = field(.kind)
        trackID = field(.trackID)
        collectionID = field(.collectionID)
        artistID = field(.artistID)
        trackName = field(.trackName)
        collectionName = field(.collectionName)
        artistName = field(.artistName)
        sellerName = field(.sellerName)
        genre = field(.genre)
        releaseDate = field(.releaseDate)
        trackPrice = field(.trackPrice)
        collectionPrice = field(.collectionPrice)
        price = field(.price)
        formattedPrice = field(.formattedPrice)
        currency = field(.currency)
        durationMilliseconds = field(.durationMilliseconds)
        artworkURL = field(.artworkURL)
        previewURL = field(.previewURL)
        storeURL = field(.storeURL) ?? field(.collectionViewURL)
        averageUserRating = field(.averageUserRating)
        version = field(.version)
        summary = field(.summary)
    }

    /// Encodes the fields under the API's names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(wrapperTypeValue, forKey: .wrapperTypeValue)
        try container.encodeIfPresent(kind, forKey: .kind)
        try container.encodeIfPresent(trackID, forKey: .trackID)
        try container.encodeIfPresent(collectionID, forKey: .collectionID)
        try container.encodeIfPresent(artistID, forKey: .artistID)
        try container.encodeIfPresent(trackName, forKey: .trackName)
        try container.encodeIfPresent(collectionName, forKey: .collectionName)
        try container.encodeIfPresent(artistName, forKey: .artistName)
        try container.encodeIfPresent(sellerName, forKey: .sellerName)
        try container.encodeIfPresent(genre, forKey: .genre)
        try container.encodeIfPresent(releaseDate, forKey: .releaseDate)
        try container.encodeIfPresent(trackPrice, forKey: .trackPrice)
        try container.encodeIfPresent(collectionPrice, forKey: .collectionPrice)
        try container.encodeIfPresent(price, forKey: .price)
        try container.encodeIfPresent(formattedPrice, forKey: .formattedPrice)
        try container.encodeIfPresent(currency, forKey: .currency)
        try container.encodeIfPresent(durationMilliseconds, forKey: .durationMilliseconds)
        try container.encodeIfPresent(artworkURL, forKey: .artworkURL)
        try container.encodeIfPresent(previewURL, forKey: .previewURL)
        try container.encodeIfPresent(storeURL, forKey: .storeURL)
        try container.encodeIfPresent(averageUserRating, forKey: .averageUserRating)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encodeIfPresent(summary, forKey: .summary)
    }
}
