import Foundation
import Testing

@testable import MediaSearchCommand

/// The program's online path, end to end, against the project's own fake iTunes and TMDB server
/// (`scripts/servers/mediaapi.py`, started by `scripts/test`) on 127.0.0.1.
@Suite(
    "mediasearch against a local iTunes and TMDB",
    .enabled(if: MediaServer.url != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct MediaSearchOnlineTests {
    private struct Outcome {
        let status: Int32
        let output: String
        let error: String
    }

    private func run(
        _ arguments: [String], key: String? = "test-key", isTerminal: Bool = false, extra: [String: String] = [:]
    ) async throws -> Outcome {
        let base = try #require(MediaServer.url)
        var environment = [
            "MEDIASEARCH_ITUNES_URL": base.absoluteString,
            "MEDIASEARCH_TMDB_URL": base.appendingPathComponent("3").absoluteString,
            "MEDIASEARCH_IMAGE_URL": base.appendingPathComponent("t/p/").absoluteString,
            "XDG_CACHE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("ms-\(UUID())").path,
        ]
        environment["TMDB_API_KEY"] = key
        environment.merge(extra) { $1 }
        let (status, output, error) = await runMediaSearch(
            arguments, environment: environment, width: 120, isTerminal: isTerminal)
        return Outcome(status: status, output: output, error: error)
    }

    @Test("search pages 25 at a time; --json parses")
    func search() async throws {
        let first = try await run(["search", "jack johnson", "--media", "music"])
        let second = try await run(["search", "jack johnson", "--media", "music", "--page", "2", "--json"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("Results 1–25 for \"jack johnson\" in music; more with --page 2"))
        #expect(!first.output.contains("offline"))
        let json = try JSONSerialization.jsonObject(with: Data(second.output.utf8)) as? [String: Any]
        #expect(json?["page"] as? Int == 2)
        #expect((json?["results"] as? [Any])?.count == 25)
    }

    @Test("lookup, popular and movie")
    func lookupPopularMovie() async throws {
        let lookup = try await run(["lookup", "860883330"])
        #expect(lookup.status == 0 && lookup.output.contains("Better Together"), "\(lookup.error)")
        let popular = try await run(["popular"])
        #expect(popular.status == 0 && popular.output.contains("Popular on TMDB, page 1 of"), "\(popular.error)")
        let movie = try await run(["movie", "27205", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(movie.output.utf8)) as? [String: Any]
        #expect(json?["title"] as? String == "Inception")
        let poster = try #require(json?["poster_url"] as? String)
        #expect(poster.hasPrefix(try #require(MediaServer.url).absoluteString + "/t/p/w500/"))
    }

    @Test("poster downloads through the image loader, drawing its progress bar on a terminal")
    func poster() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("poster-\(UUID()).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await run(["poster", "27205", "--output", file.path], isTerminal: true)
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.output.contains("] 100%"), "no progress bar in \(outcome.output.debugDescription)")
        #expect(outcome.output.contains("Saved the poster of Inception"))
        let bytes = try Data(contentsOf: file)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("iTunes' 400 and TMDB's 401 are told in one sentence with the server's message, exit 1")
    func serverErrors() async throws {
        let itunes = try await run(["search", "x", "--country", "ZZ"])
        #expect(itunes.status == 1 && itunes.output.isEmpty)
        #expect(
            itunes.error == "mediasearch: iTunes answered 400 Bad Request: Invalid value(s) for key(s): [country]\n")
        let tmdb = try await run(["popular"], key: "wrong")
        #expect(tmdb.status == 1 && tmdb.output.isEmpty)
        #expect(
            tmdb.error
                == "mediasearch: TMDB rejected the API key (401): Invalid API key: You must be granted a valid key.\n")
    }

    @Test("a refused connection is one sentence and exit 1; a base URL that is not one is a usage error")
    func unreachable() async throws {
        let refused = try await run(["search", "x"], extra: ["MEDIASEARCH_ITUNES_URL": "http://127.0.0.1:9"])
        #expect(refused.status == 1)
        #expect(refused.error.hasPrefix("mediasearch: could not reach 127.0.0.1"), "\(refused.error)")
        #expect(refused.error.filter { $0 == "\n" }.count == 1)
        let bad = try await run(["search", "x"], extra: ["MEDIASEARCH_TMDB_URL": "file:///etc"])
        #expect(bad.status == 64 && bad.error.contains("MEDIASEARCH_TMDB_URL"))
    }

    @Test("a title with terminal escape sequences is printed without them")
    func hostileText() async throws {
        let outcome = try await run(["lookup", "666"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.output.contains("Evil]0;pwned Song[2J"))
        #expect(!outcome.output.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" })
        #expect(!outcome.output.unicodeScalars.contains { $0.value == 0x202E })
    }
}

/// The fake iTunes and TMDB server's URL, from the test script.
enum MediaServer {
    static let url = ProcessInfo.processInfo.environment["COURIER_MEDIA_URL"].flatMap(URL.init(string:))
}

@Suite("Terminal text")
struct TerminalTextTests {
    @Test("escape sequences, C1 controls, DEL and bidirectional overrides go; line breaks become spaces")
    func clean() {
        #expect(TerminalText.clean("Title\u{1B}]0;owned\u{07}") == "Title]0;owned")
        #expect(TerminalText.clean("a\u{9B}31mb\u{7F}c") == "a31mbc")
        #expect(TerminalText.clean("left\u{202E}right\u{2066}x\u{2069}") == "leftrightx")
        #expect(TerminalText.clean("two\nlines\tand\rreturn") == "two lines and return")
        #expect(TerminalText.clean("Ünïcödé — 日本 🎬") == "Ünïcödé — 日本 🎬")
    }
}
