import Foundation
import ITunesSearch
import TMDB

/// What mediasearch prints for each command, as a table or as JSON.
enum Output {
    struct ItemRow: Encodable {
        let id: Int?
        let title: String
        let creator: String?
        let kind: String
        let year: Int?
        let price: String?
        let url: URL?

        init(_ item: ITunesItem) {
            id = item.id
            title = item.title
            creator = item.creator
            kind = item.kindDescription
            year = item.releaseYear
            price = item.displayPrice
            url = item.storeURL
        }
    }

    struct SearchResult: Encodable {
        let term: String
        let media: String
        let page: Int
        let limit: Int
        let results: [ItemRow]
        let skipped: Int
    }

    struct MovieRow: Encodable {
        let id: Int
        let title: String
        let year: Int?
        let rating: Double?
        let posterURL: URL?
    }

    struct PopularResult: Encodable {
        let page: Int
        let totalPages: Int
        let results: [MovieRow]
    }

    struct MovieResult: Encodable {
        let id: Int
        let title: String
        let year: Int?
        let runtimeMinutes: Int?
        let genres: [String]
        let directors: [String]
        let rating: Double?
        let overview: String?
        let posterURL: URL?
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return ((try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
    }

    static func itemTable(_ items: [ITunesItem], width: Int) -> String {
        let columns: [Table.Column] = [
            .init("Title", minimum: 12), .init("Artist or director", minimum: 8, preferredMaximum: 22),
            .init("Kind", minimum: 5, preferredMaximum: 11), .init("Year", minimum: 4),
            .init("Price", minimum: 5, alignsRight: true),
        ]
        let rows = items.map { item in
            [
                item.title, item.creator ?? "—", item.kindDescription, item.releaseYear.map(String.init) ?? "—",
                item.displayPrice ?? "—",
            ]
        }
        return Table(columns: columns, rows: rows).render(width: width)
    }

    static func movieTable(_ movies: [Movie], firstRank: Int, width: Int) -> String {
        let columns: [Table.Column] = [
            .init("#", minimum: 2, alignsRight: true), .init("Title", minimum: 12), .init("Year", minimum: 4),
            .init("Rating", minimum: 6, alignsRight: true), .init("TMDB id", minimum: 7, alignsRight: true),
        ]
        let rows = movies.enumerated().map { offset, movie in
            [
                String(firstRank + offset), movie.title, movie.releaseYear.map(String.init) ?? "—",
                movie.voteAverage.map { String(format: "%.1f", $0) } ?? "—", String(movie.id),
            ]
        }
        return Table(columns: columns, rows: rows).render(width: width)
    }

    static func movieDetails(_ movie: MovieDetails, width: Int) -> String {
        var lines = ["\(TerminalText.clean(movie.title))\(movie.releaseYear.map { " (\($0))" } ?? "")"]
        let directors = movie.directors.map(TerminalText.clean)
        if !directors.isEmpty { lines.append("Directed by \(directors.joined(separator: ", "))") }
        var facts: [String] = []
        if let runtime = movie.runtime, runtime > 0 { facts.append("\(runtime) min") }
        if let genres = movie.genres, !genres.isEmpty {
            facts.append(genres.map { TerminalText.clean($0.name) }.joined(separator: ", "))
        }
        if let rating = movie.voteAverage { facts.append(String(format: "rated %.1f/10", rating)) }
        if !facts.isEmpty { lines.append(facts.joined(separator: " · ")) }
        if let overview = movie.overview, !overview.isEmpty {
            lines.append("")
            lines += wrap(TerminalText.clean(overview), width: min(width, 100))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
