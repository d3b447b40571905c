import Courier
import CourierTesting
import Foundation
import ITunesSearch
import TMDB
import Testing

@testable import MediaSearchCommand

/// The README's pagination samples, compiled and run against the offline samples.
@Suite("README pagination samples")
struct ReadmePaginationTests {
    struct Issue: Decodable, Sendable {
        let title: String
    }

    struct EventPage: Decodable, Sendable {
        let next: String?
    }

    struct Events: Endpoint {
        typealias Response = EventPage
        let after: String?
        var path: Path { "events" }
        var query: Query { ["after": after] }
    }

    @Test("the samples compile and the iTunes one prints 64 songs over three pages")
    func samples() async throws {
        let transport = OfflineSamples.transport()
            .on(.get, "/events", .json(#"{"next": null}"#))
            .on(.get, "/repos/apple/swift/issues", .json(#"[{"title": "a"}]"#))
        let client = APIClient(baseURL: ITunesClient.baseURL, transport: transport)
        let tmdbClient = TMDBClient(authentication: .apiKey("k"), transport: transport).client

        let pages = client.pages(
            pageSize: 25, itemCount: { $0.results.count },
            endpoint: { offset, limit in
                ITunesSearchRequest(term: "jack johnson", media: .music, limit: limit, offset: offset)
            })
        var titles: [String] = []
        for try await song in pages.limited(toPages: 4).items({ $0.results }) { titles.append(song.title) }

        let popular = tmdbClient.pages(totalPages: { $0.totalPages }, endpoint: { PopularMoviesRequest(page: $0) })
        let events = client.pages(from: Events(after: nil), nextCursor: { $0.next }, endpoint: { Events(after: $0) })
        let issues = client.pages(following: .get("repos/apple/swift/issues", as: [Issue].self))
        var counts = [0, 0, 0]
        for try await _ in popular.limited(toPages: 5) { counts[0] += 1 }
        for try await _ in events.limited(toPages: 5) { counts[1] += 1 }
        for try await _ in issues.limited(toPages: 5) { counts[2] += 1 }

        #expect(titles.count == 63 && titles.first == "Better Together")
        #expect(counts == [3, 1, 1])
    }
}
