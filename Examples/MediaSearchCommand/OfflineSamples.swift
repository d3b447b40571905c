import Courier
import CourierTesting
import Foundation
import ITunesSearch
import TMDB

/// The sample responses bundled with mediasearch, answered through a stub transport as the live
/// APIs would answer: the iTunes results sliced by `offset` and `limit`, TMDB's popular films 20 a
/// page, details by id, and one poster image for every film.
enum OfflineSamples {
    /// The bundled sample files (`Samples/…`), read once.
    private static let folder = Bundle.module.resourceURL?.appendingPathComponent("Samples")

    private struct ITunesSample: Decodable {
        let term: String
        let media: String
        let results: [JSONValue]
    }

    /// The terms with samples, by media kind name.
    static var itunesTerms: [(term: String, media: String)] {
        itunesSamples.map { ($0.term, $0.media) }
    }

    private static let itunesSamples: [ITunesSample] = {
        guard let folder else { return [] }
        let files =
            (try? FileManager.default.contentsOfDirectory(
                at: folder.appendingPathComponent("itunes"), includingPropertiesForKeys: nil)) ?? []
        return files.sorted { $0.path < $1.path }.compactMap { file in
            (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(ITunesSample.self, from: $0) }
        }
    }()

    private static func tmdbFile(_ name: String) -> Data? {
        folder.flatMap { try? Data(contentsOf: $0.appendingPathComponent("tmdb").appendingPathComponent(name)) }
    }

    /// A transport answering every request mediasearch makes from the samples.
    static func transport() -> StubTransport {
        let transport = StubTransport()
        let popular = tmdbFile("popular.json").flatMap { try? JSONDecoder().decode(Popular.self, from: $0) }
        let details = tmdbFile("movies.json").flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: $0) }
        let poster = tmdbFile("poster.png") ?? Data()
        let movies = popular?.results ?? []
        transport.on("iTunes search", where: { isITunes($0, "/search") }, respond: search)
        transport.on("iTunes lookup", where: { isITunes($0, "/lookup") }, respond: lookup)
        transport.on(
            "TMDB popular", where: { isTMDB($0, "/3/movie/popular") }, respond: { popularPage($0, movies: movies) })
        transport.on(
            "TMDB search", where: { isTMDB($0, "/3/search/movie") }, respond: { searchMovies($0, movies: movies) })
        transport.on(
            "TMDB configuration", where: { isTMDB($0, "/3/configuration") },
            respond: { _ in .json(String(decoding: tmdbFile("configuration.json") ?? Data("{}".utf8), as: UTF8.self)) }
        )
        transport.on(
            "TMDB movie", where: { isTMDB($0, "/3/movie/") },
            respond: { request in details?[request.url.lastPathComponent].map { .json($0.text) } ?? notFound }
        )
        transport.on(
            "TMDB poster", where: { $0.url.host == "image.tmdb.org" },
            respond: { _ in
                .response(
                    status: .ok, headers: [.contentType: "image/png", .contentLength: String(poster.count)],
                    body: poster)
            }
        )
        return transport
    }

    private static func isITunes(_ request: HTTPRequest, _ path: String) -> Bool {
        request.url.host == "itunes.apple.com" && request.url.path == path
    }

    /// Whether the request is TMDB's `path`, or under it when `path` ends with a slash.
    private static func isTMDB(_ request: HTTPRequest, _ path: String) -> Bool {
        request.url.host == "api.themoviedb.org"
            && (path.hasSuffix("/") ? request.url.path.hasPrefix(path) : request.url.path == path)
    }

    // MARK: iTunes

    private static func parameters(_ request: HTTPRequest) -> [String: String] {
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    private static func normalized(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0 == " " || $0 == "+" }).joined(separator: " ")
    }

    /// The sample for a media kind and term: the exact term, else one whose term contains every word.
    static func sample(media: String, term: String) -> [JSONValue]? {
        let wanted = normalized(term)
        let kind = ITunesMedia(name: media)?.rawValue ?? media
        let candidates = itunesSamples.filter { $0.media == kind }
        let match =
            candidates.first { $0.term == wanted }
            ?? candidates.first { sample in wanted.split(separator: " ").allSatisfy { sample.term.contains($0) } }
        return match?.results
    }

    @Sendable private static func search(_ request: HTTPRequest) -> StubResponse {
        let query = parameters(request)
        let results = sample(media: query["media"] ?? "all", term: query["term"] ?? "") ?? []
        let offset = Int(query["offset"] ?? "") ?? 0
        let limit = Int(query["limit"] ?? "") ?? 50
        let page = Array(results.dropFirst(offset).prefix(limit))
        return itunesPage(page)
    }

    @Sendable private static func lookup(_ request: HTTPRequest) -> StubResponse {
        let ids = Set((parameters(request)["id"] ?? "").split(separator: ",").compactMap { Int($0) })
        var found: [JSONValue] = []
        var seen = Set<Int>()
        for sample in itunesSamples {
            for item in sample.results {
                guard let id = item.identifier(among: ids), !seen.contains(id) else { continue }
                seen.insert(id)
                found.append(item)
            }
        }
        return itunesPage(found)
    }

    private static func itunesPage(_ results: [JSONValue]) -> StubResponse {
        let body = JSONValue.object(["resultCount": .number(Double(results.count)), "results": .array(results)])
        return .response(
            status: .ok, headers: [.contentType: "text/javascript; charset=utf-8"], body: Data(body.text.utf8))
    }

    // MARK: TMDB

    private struct Popular: Decodable {
        let results: [JSONValue]
    }

    private static let notFound = StubResponse.json(
        #"{"status_code": 34, "status_message": "The resource you requested could not be found.", "success": false}"#,
        status: .notFound
    )

    private static func moviePage(_ movies: [JSONValue], page: Int) -> StubResponse {
        let pages = max(1, (movies.count + 19) / 20)
        let slice = Array(movies.dropFirst((page - 1) * 20).prefix(20))
        let body = JSONValue.object([
            "page": .number(Double(page)), "results": .array(slice), "total_pages": .number(Double(pages)),
            "total_results": .number(Double(movies.count)),
        ])
        return .json(body.text)
    }

    private static func popularPage(_ request: HTTPRequest, movies: [JSONValue]) -> StubResponse {
        let page = Int(parameters(request)["page"] ?? "") ?? 1
        guard page >= 1, page <= 500 else {
            return .json(
                #"{"status_code": 22, "status_message": "Invalid page: Pages start at 1 and max at 500.", "success": false}"#,
                status: .badRequest)
        }
        return moviePage(movies, page: page)
    }

    private static func searchMovies(_ request: HTTPRequest, movies: [JSONValue]) -> StubResponse {
        let words = normalized(parameters(request)["query"] ?? "").split(separator: " ")
        let matches = movies.filter { movie in
            let title = normalized(movie["title"]?.string ?? "")
            return words.allSatisfy { title.contains($0) }
        }
        return moviePage(matches, page: Int(parameters(request)["page"] ?? "") ?? 1)
    }
}
