import Courier
import CourierImages
import Foundation
import ITunesSearch
import TMDB

/// Runs one parsed command against the two APIs.
struct Services {
    let invocation: Invocation
    let environment: [String: String]
    let console: Console
    let urls: ServiceURLs
    let transport: any HTTPTransport

    private var logging: [any Middleware] {
        invocation.verbose ? [LoggingMiddleware(sink: ConsoleLogHandler(console: console))] : []
    }

    private var itunes: ITunesClient {
        ITunesClient(baseURL: urls.itunes, transport: transport, middlewares: [RetryMiddleware()] + logging)
    }

    private func tmdb() throws -> TMDBClient {
        // Offline, the samples need no key; a placeholder keeps the request shape real.
        let environment = invocation.offline ? ["TMDB_API_KEY": "offline-sample-key"] : environment
        return try TMDBClient(
            environment: environment, baseURL: urls.tmdb, imageBaseURL: urls.images, transport: transport,
            innerMiddlewares: logging)
    }

    func run(_ command: Invocation.Command) async throws {
        switch command {
        case .search(let term, let media, let page, let limit, let country):
            try await search(term: term, media: media, page: page, limit: limit, country: country)
        case .lookup(let ids):
            let found = try await itunes.lookup(.ids(ids))
            guard !found.results.isEmpty else {
                throw APIError(
                    .unacceptableStatus(.notFound),
                    message: "no item with id \(ids.map(String.init).joined(separator: ", "))")
            }
            console.write(
                invocation.json
                    ? Output.json(found.results.map(Output.ItemRow.init))
                    : Output.itemTable(found.results, width: console.width))
        case .popular(let page):
            try await popular(page: page)
        case .movie(let id):
            let client = try tmdb()
            let details = try await client.movie(id: id)
            if invocation.json {
                console.write(
                    Output.json(
                        Output.MovieResult(
                            id: details.id, title: details.title, year: details.releaseYear,
                            runtimeMinutes: details.runtime,
                            genres: details.genres?.map(\.name) ?? [], directors: details.directors,
                            rating: details.voteAverage,
                            overview: details.overview, posterURL: client.posterURL(details.posterPath)
                        )))
            } else {
                console.write(Output.movieDetails(details, width: console.width))
            }
        case .poster(let id, let size, let output):
            try await poster(id: id, size: size, output: output)
        case .help:
            break
        }
    }

    private func search(term: String, media: ITunesMedia, page: Int, limit: Int, country: String?) async throws {
        let result = try await itunes.search(term, media: media, page: page, limit: limit, country: country)
        if invocation.json {
            let rows = result.results.map(Output.ItemRow.init)
            let output = Output.SearchResult(
                term: term, media: media.rawValue, page: page, limit: limit, results: rows, skipped: result.skippedCount
            )
            console.write(Output.json(output))
            return
        }
        guard !result.results.isEmpty else {
            console.write("No results for \"\(term)\" in \(media.rawValue)\(page > 1 ? " on page \(page)" : "").\n")
            if invocation.offline, page == 1 {
                let terms = OfflineSamples.itunesTerms.map { "\"\($0.term)\" (\($0.media))" }.joined(separator: ", ")
                console.writeError("mediasearch: offline samples cover \(terms)\n")
            }
            return
        }
        console.write(Output.itemTable(result.results, width: console.width))
        let first = (page - 1) * limit + 1
        let received = result.results.count + result.skippedCount
        let more = received == limit ? "; more with --page \(page + 1)" : ""
        let source = invocation.offline ? " (offline samples)" : ""
        let skipped =
            result.skippedCount == 0
            ? "" : ", \(result.skippedCount) unreadable result\(result.skippedCount == 1 ? "" : "s") left out"
        console.write(
            "\nResults \(first)–\(first + received - 1) for \"\(term)\" in \(media.rawValue)\(source)\(skipped)\(more)\n"
        )
    }

    private func popular(page: Int) async throws {
        let client = try tmdb()
        let movies = try await client.popular(page: page)
        if invocation.json {
            let rows = movies.results.map {
                Output.MovieRow(
                    id: $0.id, title: $0.title, year: $0.releaseYear, rating: $0.voteAverage,
                    posterURL: client.posterURL($0.posterPath))
            }
            console.write(
                Output.json(Output.PopularResult(page: movies.page, totalPages: movies.totalPages, results: rows)))
            return
        }
        console.write(Output.movieTable(movies.results, firstRank: (page - 1) * 20 + 1, width: console.width))
        let source = invocation.offline ? " (offline samples)" : ""
        console.write("\nPopular on TMDB, page \(movies.page) of \(movies.totalPages)\(source)\n")
    }

    private func poster(id: Int, size: TMDBClient.PosterSize, output: String?) async throws {
        let client = try tmdb()
        let movie = try await client.movie(id: id)
        guard let url = client.posterURL(movie.posterPath, size: size) else {
            throw APIError(.unacceptableStatus(.notFound), message: "\(TerminalText.clean(movie.title)) has no poster")
        }
        if let output, FileManager.default.fileExists(atPath: output) {
            throw UsageError(message: "\(output) exists already; pass --output with another name", topic: "poster")
        }
        let loader = try ImageLoader(
            client: APIClient(baseURL: urls.images, transport: transport, middlewares: logging),
            configuration: .init(directory: invocation.offline ? nil : Self.posterCache(environment))
        )
        let bar = console.isTerminal && !invocation.json ? ProgressBar(console: console) : nil
        let image = try await loader.image(for: url) { progress in bar?.update(progress) }
        bar?.finish()
        let destination = URL(fileURLWithPath: output ?? "\(id)-\(size.rawValue).\(image.format.fileExtension)")
        try PosterFile.write(image.data, to: destination)
        let summary =
            "Saved the poster of \(TerminalText.clean(movie.title)) (\(size.rawValue), \(image.pixelWidth)×\(image.pixelHeight) "
            + "\(image.format.rawValue.uppercased()), \(image.data.count) bytes) to \(destination.path)"
        let json = ["path": destination.path, "bytes": String(image.data.count), "format": image.format.rawValue]
        console.write(invocation.json ? Output.json(json) : summary + "\n")
    }

    /// Where live posters are cached between runs: `$XDG_CACHE_HOME/mediasearch/posters`, else
    /// `~/.cache/mediasearch/posters`.
    private static func posterCache(_ environment: [String: String]) -> URL {
        let base =
            environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("mediasearch").appendingPathComponent("posters")
    }
}

/// Writes Courier's log lines (already redacted) to the console's standard error.
struct ConsoleLogHandler: LogSink {
    let console: Console
    var minimumLevel: LogLevel { .info }

    func log(_ level: LogLevel, _ message: String) {
        console.writeError("[courier] \(level): \(message)\n")
    }
}
