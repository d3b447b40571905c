import Courier
import Foundation

/// One result of the iTunes Search API; every field may be missing.
struct Track: Decodable, Sendable {
    let trackName: String?
    let collectionName: String?
    let artistName: String?
    let kind: String?
    let releaseDate: String?
    let trackPrice: Double?
    let currency: String?
}

/// A page of iTunes search results.
struct SearchPage: Decodable, Sendable {
    let resultCount: Int
    let results: [Track]
}

/// The error body iTunes sends with a 400.
struct ITunesError: ServerErrorBody {
    let errorMessage: String
    var serverMessage: String? { errorMessage }
}

/// An endpoint type: the request names its response and its server's error body.
struct SearchSongs: Endpoint {
    typealias Response = SearchPage
    typealias ErrorBody = ITunesError

    let term: String
    let limit: Int

    var path: Path { "search" }
    var query: Query {
        [
            .init(name: "term", value: term), .init(name: "media", value: "music"),
            .init(name: "limit", value: "\(limit)"),
        ]
    }
}

/// A router enum: the whole API in one place; the page turns into an offset here, not in callers.
enum ITunesRoute: Route {
    case search(term: String, media: String, entity: String, page: Int)
    case lookup(id: Int)

    static let pageSize = 25

    var path: Path {
        switch self {
        case .search: "search"
        case .lookup: "lookup"
        }
    }

    var query: Query {
        switch self {
        case .search(let term, let media, let entity, let page):
            [
                .init(name: "term", value: term), .init(name: "media", value: media),
                .init(name: "entity", value: entity),
                .init(name: "limit", value: "\(Self.pageSize)"),
                .init(name: "offset", value: "\(Self.pageSize * page)"),
            ]
        case .lookup(let id):
            [.init(name: "id", value: "\(id)")]
        }
    }
}

/// Prints tracks as an aligned table.
enum Table {
    static func print(_ tracks: [Track]) {
        let rows = tracks.map { track in
            [
                clip(track.trackName ?? track.collectionName ?? "?", 34), clip(track.artistName ?? "", 20),
                String(track.releaseDate?.prefix(4) ?? ""),
                track.trackPrice.map { String(format: "%.2f %@", $0, track.currency ?? "") } ?? "",
            ]
        }
        let header = ["Title", "Artist", "Year", "Price"]
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            let line = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(
                separator: "  ")
            Swift.print(line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
        }
    }

    private static func clip(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }
}
