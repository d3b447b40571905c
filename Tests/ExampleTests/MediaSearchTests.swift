import Courier
import CourierTesting
import Foundation
import Testing

@testable import MediaSearchCommand

@Suite("mediasearch, in process")
struct MediaSearchTests {
    @Test("the README's offline search prints an aligned table of 25 songs and a summary")
    func offlineSearch() async {
        let run = await runMediaSearch(["search", "jack johnson", "--media", "music", "--offline"])

        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(run.status == 0 && run.error.isEmpty)
        #expect(lines[0].hasPrefix("Title") && lines[0].contains("Artist or director") && lines[0].hasSuffix("Price"))
        #expect(lines[2].hasPrefix("Better Together") && lines[2].hasSuffix("$1.29"))
        #expect(lines.filter { $0.contains("Jack Johnson") }.count == 25)
        #expect(run.output.contains(#"Results 1–25 for "jack johnson" in music (offline samples); more with --page 2"#))
        // Aligned: every row's price ends in the same column.
        let rows = lines.dropFirst(2).prefix(25)
        #expect(Set(rows.map(\.count)).count == 1)
    }

    @Test("the table fits narrow terminals, truncating long titles with …")
    func narrow() async {
        let run = await runMediaSearch(["search", "jack johnson", "--offline"], width: 50)

        let lines = run.output.split(separator: "\n").dropLast()
        #expect(lines.allSatisfy { Table.length(String($0)) <= 50 })
        #expect(run.output.contains("…"))
    }

    @Test("--json parses back; --page 2 differs from page 1")
    func jsonAndPages() async throws {
        struct Page: Decodable {
            struct Row: Decodable {
                let id: Int?
                let title: String
                let kind: String
            }
            let page: Int
            let results: [Row]
        }
        let first = await runMediaSearch(["--json", "search", "jack", "johnson", "--media", "music", "--offline"])
        let second = await runMediaSearch([
            "search", "jack johnson", "--media=music", "--page", "2", "--offline", "--json",
        ])

        let one = try JSONDecoder().decode(Page.self, from: Data(first.output.utf8))
        let two = try JSONDecoder().decode(Page.self, from: Data(second.output.utf8))
        #expect(one.page == 1 && two.page == 2)
        #expect(one.results.count == 25 && two.results.count == 25)
        #expect(Set(one.results.compactMap(\.id)).isDisjoint(with: two.results.compactMap(\.id)))
    }

    @Test("lookup, popular, movie and poster work offline")
    func otherCommands() async throws {
        let lookup = await runMediaSearch(["lookup", "909253", "--offline"])
        let popular = await runMediaSearch(["popular", "--page", "2", "--offline"])
        let movie = await runMediaSearch(["movie", "27205", "--offline"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("posters-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("inception.png").path
        let poster = await runMediaSearch(["poster", "27205", "--size", "w92", "--output", file, "--offline"])
        let again = await runMediaSearch(["poster", "27205", "--output", file, "--offline"])

        #expect(lookup.status == 0 && lookup.output.contains("artist"))
        #expect(popular.status == 0 && popular.output.contains("21  ") && popular.output.contains("page 2 of 3"))
        #expect(movie.status == 0 && movie.output.hasPrefix("Inception (2010)\nDirected by Christopher Nolan"))
        #expect(poster.status == 0 && FileManager.default.contents(atPath: file)?.starts(with: [0x89, 0x50]) == true)
        #expect(again.status == 64 && again.error.contains("exists already"))
    }

    @Test("poster goes through the image loader, with a progress bar on a terminal and none otherwise")
    func posterProgress() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let terminal = await runMediaSearch(
            ["poster", "155", "--offline", "--output", folder.appendingPathComponent("a.png").path], isTerminal: true)
        let piped = await runMediaSearch([
            "poster", "155", "--offline", "--output", folder.appendingPathComponent("b.png").path,
        ])

        #expect(terminal.status == 0 && terminal.output.contains("█") && terminal.output.contains("100%"))
        #expect(terminal.output.contains("100×150 PNG"))
        #expect(piped.status == 0 && !piped.output.contains("█") && !piped.output.contains("\r"))
    }

    @Test(
        "usage errors exit 64 with the usage text",
        arguments: [
            ["frobnicate"], ["search"], ["search", "x", "--media", "vinyl"], ["search", "x", "--limit", "500"],
            ["search", "x", "--page"], ["popular", "--size", "w92"], ["movie", "abc"], ["search", "x", "--colour"],
            ["poster", "1", "--size", "huge"], ["lookup", "12x"],
        ]
    )
    func usageErrors(arguments: [String]) async {
        let run = await runMediaSearch(arguments + ["--offline"])

        #expect(run.status == 64)
        #expect(run.error.hasPrefix("mediasearch: "))
        #expect(run.error.contains("Usage: mediasearch"))
        #expect(run.output.isEmpty)
    }

    @Test("an unknown media kind names the valid ones")
    func unknownMedia() async {
        let run = await runMediaSearch(["search", "x", "--media", "vinyl"])
        #expect(
            run.error.hasPrefix(#"mediasearch: unknown media kind "vinyl"; use one of: music, movies, apps, books"#))
    }

    @Test("--help everywhere, and no arguments at all, print help and exit 0")
    func help() async {
        for arguments in [["--help"], [], ["search", "--help"], ["help", "poster"], ["popular", "-h"]] {
            let run = await runMediaSearch(arguments)
            #expect(run.status == 0 && run.output.contains("Usage: mediasearch"), "\(arguments)")
        }
    }

    @Test("a server error through the stub transport: exit 1 and one plain sentence")
    func serverErrors() async {
        let itunesDown = StubTransport().on(
            .get, "*", .json(#"{"errorMessage": "Service unavailable"}"#, status: .badGateway))
        let badKey = StubTransport().on(
            .get, "*",
            .json(
                #"{"status_code": 7, "status_message": "Invalid API key: You must be granted a valid key.", "success": false}"#,
                status: .unauthorized))
        let offline = StubTransport().on(.get, "*", .failure(URLError(.notConnectedToInternet)))

        let search = await runMediaSearch(["search", "x"], transport: itunesDown)
        let popular = await runMediaSearch(["popular"], environment: ["TMDB_API_KEY": "wrong"], transport: badKey)
        let unreachable = await runMediaSearch(["search", "x"], transport: offline)
        let noKey = await runMediaSearch(["popular"], transport: badKey)

        #expect(
            search.status == 1 && search.error == "mediasearch: iTunes answered 502 Bad Gateway: Service unavailable\n")
        #expect(popular.status == 1)
        #expect(
            popular.error
                == "mediasearch: TMDB rejected the API key (401): Invalid API key: You must be granted a valid key.\n")
        #expect(
            unreachable.status == 1 && unreachable.error.hasPrefix("mediasearch: could not reach itunes.apple.com: "))
        #expect(unreachable.error.hasSuffix("; try --offline\n"))
        #expect(noKey.status == 1 && noKey.error.contains("set TMDB_API_KEY"))
        #expect(itunesDown.requests.count == 3)  // 502 is retried twice before the failure is reported
    }

    @Test("--verbose logs each request with its timing to standard error, key redacted")
    func verbose() async {
        let run = await runMediaSearch(
            ["popular", "--verbose"], environment: ["TMDB_API_KEY": "s3cr3t-k3y"], transport: OfflineSamples.transport()
        )

        #expect(run.status == 0)
        #expect(
            run.error.contains(
                "[courier] info: GET https://api.themoviedb.org/3/movie/popular?page=1&api_key=REDACTED → 200 OK in "))
        #expect(!run.error.contains("s3cr3t-k3y"))
    }

    private static let emptyPopularPage = #"{"page": 1, "results": [], "total_pages": 1, "total_results": 0}"#

    @Test(
        "a TMDB key is never sent over plain HTTP to a host that is not loopback: exit 64 before any request",
        arguments: [
            (["popular"], "http://example.invalid/3"), (["movie", "27205"], "http://10.255.255.1/3"),
            (["poster", "27205"], "HTTP://API.EXAMPLE.INVALID/3"), (["popular"], "http://127.0.0.1.example.invalid/3"),
            (["popular"], "http://localhost.example.invalid/3"), (["popular"], "http://[::ffff:10.0.0.1]/3"),
            // A NUL, decoded, would stop inet_pton after "127.0.0.1" (found by the review).
            (["popular"], "http://127.0.0.1%00.example.invalid/3"), (["popular"], "http://127.0.0.1%2F/3"),
        ])
    func plainHTTPKeyRefused(arguments: [String], url: String) async {
        let key = "SENTINEL-tmdb-key-\(UUID().uuidString.prefix(8))"
        let transport = StubTransport()

        let run = await runMediaSearch(
            arguments, environment: ["TMDB_API_KEY": key, "MEDIASEARCH_TMDB_URL": url], transport: transport)

        #expect(run.status == 64, "\(run.error)")
        #expect(run.error.hasPrefix("mediasearch: MEDIASEARCH_TMDB_URL "), "\(run.error)")
        #expect(run.error.contains("--allow-insecure-http"), "\(run.error)")
        #expect(!run.error.contains(key))
        #expect(transport.requests.isEmpty, "a request went out: \(transport.requests)")
    }

    @Test(
        "a TMDB key goes over HTTPS anywhere, and over plain HTTP to loopback",
        arguments: [
            "https://tmdb.example.com/3", "http://127.0.0.1:8080/3", "http://127.9.8.7/3", "http://localhost:8080/3",
            "http://LOCALHOST/3", "http://[::1]:8080/3",
        ])
    func keySentToSafeURL(url: String) async throws {
        let transport = StubTransport().on(.get, "*", .json(Self.emptyPopularPage))

        let run = await runMediaSearch(
            ["popular"], environment: ["TMDB_API_KEY": "k3y", "MEDIASEARCH_TMDB_URL": url], transport: transport)

        #expect(run.status == 0, "\(run.error)")
        let request = try #require(transport.requests.first)
        #expect(request.url.host?.lowercased() == URL(string: url)?.host?.lowercased())
        #expect(request.url.query?.contains("api_key=k3y") == true)
    }

    @Test("--allow-insecure-http sends the key over plain HTTP to any host, as asked")
    func allowInsecureHTTP() async throws {
        let transport = StubTransport().on(.get, "*", .json(Self.emptyPopularPage))

        let run = await runMediaSearch(
            ["popular", "--allow-insecure-http"],
            environment: ["TMDB_API_KEY": "k3y", "MEDIASEARCH_TMDB_URL": "http://tmdb-mirror.example.invalid/3"],
            transport: transport)

        #expect(run.status == 0, "\(run.error)")
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString.hasPrefix("http://tmdb-mirror.example.invalid/3/movie/popular?"))
        #expect(request.url.query?.contains("api_key=k3y") == true)
    }

    @Test("iTunes carries no key: a plain-HTTP iTunes URL needs no flag")
    func plainHTTPWithoutKey() async throws {
        let transport = StubTransport().on(.get, "*", .json(#"{"resultCount": 0, "results": []}"#))

        let run = await runMediaSearch(
            ["search", "x"], environment: ["MEDIASEARCH_ITUNES_URL": "http://itunes-mirror.example.invalid"],
            transport: transport)

        #expect(run.status == 0, "\(run.error)")
        #expect(transport.requests.first?.url.host == "itunes-mirror.example.invalid")
    }

    @Test("--help explains when plain HTTP may carry the key")
    func helpMentionsInsecureHTTP() async {
        let run = await runMediaSearch(["--help"])

        #expect(run.output.contains("--allow-insecure-http"))
        #expect(run.output.contains("127.0.0.1"))
    }

    @Test("an offline term without samples says which terms have them")
    func unknownOfflineTerm() async {
        let run = await runMediaSearch(["search", "zzz", "--media", "music", "--offline"])
        #expect(run.status == 0 && run.output == "No results for \"zzz\" in music.\n")
        #expect(run.error.contains(#""jack johnson" (music)"#))
    }
}
