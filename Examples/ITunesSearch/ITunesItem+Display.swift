import Foundation

extension ITunesItem {
    /// The identifier a lookup finds this item by: the track's, else the collection's, else the artist's.
    public var id: Int? { trackID ?? collectionID ?? artistID }

    /// The name to show: the track's, else the collection's, else the artist's.
    public var title: String {
        trackName ?? collectionName ?? artistName ?? "Untitled"
    }

    /// Who made it: the artist, director or author, else the app's seller.
    public var creator: String? {
        wrapperType == .artist ? nil : artistName ?? sellerName
    }

    /// What it is, in words: `song`, `album`, `artist`, `movie`, `app`, `book`, `podcast`,
    /// `TV episode`, `music video`, `audiobook`, or the API's own word for anything newer.
    public var kindDescription: String {
        switch (wrapperType, kind) {
        case (.artist, _): "artist"
        case (.collection, _): "album"
        case (.audiobook, _): "audiobook"
        case (_, "song"): "song"
        case (_, "feature-movie"): "movie"
        case (_, "music-video"): "music video"
        case (_, "podcast"), (_, "podcast-episode"): "podcast"
        case (_, "tv-episode"): "TV episode"
        case (_, "software"), (.software, _): "app"
        case (_, "ebook"), (_, "book"): "book"
        case (_, let kind?): kind
        default: "item"
        }
    }

    /// The year of release, read from the start of `releaseDate`.
    public var releaseYear: Int? {
        guard let releaseDate, releaseDate.count >= 4, let year = Int(releaseDate.prefix(4)), year > 0 else {
            return nil
        }
        return year
    }

    /// The price to show: the API's own formatting when it sends one, `Free` for zero, an amount with
    /// its currency otherwise, `nil` when there is no price (or the API's -1, not for sale).
    public var displayPrice: String? {
        if let formattedPrice, !formattedPrice.isEmpty { return formattedPrice }
        guard let amount = trackPrice ?? collectionPrice ?? price, amount >= 0 else { return nil }
        if amount == 0 { return "Free" }
        let number = String(format: "%.2f", amount)
        switch currency {
        case "USD", "CAD", "AUD", nil: return "$" + number
        case "EUR": return "€" + number
        case "GBP": return "£" + number
        case "JPY": return "¥" + String(Int(amount.rounded()))
        case let code?: return "\(number) \(code)"
        }
    }
}
