import Courier
import CourierTesting
import Foundation
import ITunesSearch
import TMDB
import Testing

@testable import MediaSearchCommand

@Suite("Bundled samples and odd items")
struct SampleDecodingTests {
    private let itunes = ITunesClient(transport: OfflineSamples.transport())
    private let tmdb = TMDBClient(authentication: .apiKey("sample"), transport: OfflineSamples.transport())

    @Test("every iTunes sample decodes, page by page, with titles, creators, kinds and years")
    func itunesSamples() async throws {
        #expect(OfflineSamples.itunesTerms.count == 10)
        for (term, media) in OfflineSamples.itunesTerms {
            let kind = try #require(ITunesMedia(name: media))
            var items: [ITunesItem] = []
            for try await page in itunes.pages(term, media: kind).limited(toPages: 10) { items += page.results }
            #expect(!items.isEmpty, "\(term) \(media)")
            #expect(items.allSatisfy { $0.title != "Untitled" }, "\(term) \(media)")
            #expect(items.filter { $0.releaseYear == nil }.count <= 1, "\(term) \(media)")
        }
    }

    @Test(
        "every media kind of the samples reads as the right kind",
        arguments: [
            ("music", "jack johnson", "song"), ("movies", "christopher nolan", "movie"), ("apps", "notes", "app"),
            ("books", "dune", "book"), ("podcasts", "science", "podcast"), ("audiobooks", "tolkien", "audiobook"),
            ("music-videos", "taylor swift", "music video"), ("tv-shows", "the office", "TV episode"),
            ("short-films", "pixar", "movie"),
        ])
    func kinds(media: String, term: String, kind: String) async throws {
        let page = try await itunes.search(term, media: try #require(ITunesMedia(name: media)))
        #expect(page.results.allSatisfy { $0.kindDescription == kind })
    }

    @Test("the mixed sample: artist, album, an unknown kind, an odd field, and a non-object skipped")
    func oddItems() async throws {
        let page = try await itunes.search("jack johnson", media: .all, limit: 200)
        let apps = try await itunes.search("notes", media: .apps)

        #expect(page.results.first?.kindDescription == "artist" && page.results.first?.creator == nil)
        #expect(page.results[1].kindDescription == "album")
        #expect(page.results.contains { $0.kindDescription == "interactive-booklet" && $0.displayPrice == nil })
        #expect(page.skippedCount == 1)
        #expect(page.resultCount == page.results.count + 1)
        #expect(apps.results[3].averageUserRating == nil && apps.results[3].title == "Notability: Notes, PDF")
    }

    @Test("hand-made odd pages: missing fields, wrong types, nulls, nested garbage, a broken page")
    func handMadeOddities() throws {
        let json = #"""
            {"resultCount": 5, "results": [
              {},
              {"wrapperType": "track", "kind": "song", "trackName": 7, "artistName": null, "trackPrice": "1.29"},
              [1, {"a": [true, null]}],
              {"wrapperType": "hologram", "kind": "hologram", "collectionName": "Future", "releaseDate": "20"},
              {"kind": "ebook", "trackName": "Book", "price": -1, "formattedPrice": ""}
            ]}
            """#
        let page = try JSONDecoder().decode(ITunesPage.self, from: Data(json.utf8))

        #expect(page.results.count == 4 && page.skippedCount == 1)
        #expect(page.results[0].title == "Untitled" && page.results[0].kindDescription == "item")
        #expect(page.results[1].trackName == nil && page.results[1].trackPrice == nil)
        #expect(page.results[2].kindDescription == "hologram" && page.results[2].releaseYear == nil)
        #expect(page.results[3].displayPrice == nil)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ITunesPage.self, from: Data(#"{"results": 3}"#.utf8))
        }
    }

    @Test("TMDB: popular pages 1–3, every film's details with its director, the configuration")
    func tmdbSamples() async throws {
        var movies: [Movie] = []
        for try await page in tmdb.popularPages().limited(toPages: 10) { movies += page.results }
        #expect(movies.count == 60 && Set(movies.map(\.id)).count == 60)
        for movie in movies {
            let details = try await tmdb.movie(id: movie.id)
            #expect(details.title == movie.title && !details.directors.isEmpty)
            #expect(
                tmdb.posterURL(details.posterPath, size: .w92)?.absoluteString.hasPrefix(
                    "https://image.tmdb.org/t/p/w92/") == true)
        }
        let configuration = try await tmdb.configuration()
        #expect(configuration.images.posterSizes.contains("w500"))
    }
}
