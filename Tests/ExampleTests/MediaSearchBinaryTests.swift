import ChildProcess
import Foundation
import Testing

/// The built `mediasearch` program, run as a newcomer runs it.
@Suite("mediasearch, the built program", .timeLimit(.minutes(1)))
struct MediaSearchBinaryTests {
    /// `mediasearch` next to the test bundle, where `swift build` puts every product.
    private static let program: URL? = {
        let candidates = [
            Bundle.main.executableURL, Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]),
        ]
        for case let start? in candidates {
            var folder = start.deletingLastPathComponent()
            for _ in 0..<3 {
                let candidate = folder.appendingPathComponent("mediasearch")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }()

    /// Runs the program and collects what it wrote. The wait happens on a Dispatch thread, not on
    /// the cooperative pool: a test blocked there would starve every other test's tasks (the pool
    /// has a thread per core, two on the CI machine).
    private func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String, String)
    {
        let program = try #require(Self.program, "build the mediasearch product first (scripts/test does)")
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.runBlocking(program, arguments, environment) })
            }
        }
    }

    private static func runBlocking(
        _ program: URL, _ arguments: [String], _ environment: [String: String]
    ) throws -> (Int32, String, String) {
        var variables = ProcessInfo.processInfo.environment
        variables["TMDB_API_KEY"] = nil
        variables["TMDB_ACCESS_TOKEN"] = nil
        variables.merge(environment) { $1 }
        let process = try ChildProcess(
            program.path, arguments, environment: variables, output: .piped, errorOutput: .piped)
        let outputData = process.output?.readDataToEndOfFile() ?? Data()
        let errorData = process.errorOutput?.readDataToEndOfFile() ?? Data()
        return (
            process.wait().status ?? -1, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }

    @Test("the README command prints the table and exits 0")
    func readmeCommand() async throws {
        let (status, output, error) = try await run(["search", "jack johnson", "--media", "music", "--offline"])

        #expect(status == 0 && error.isEmpty)
        #expect(output.contains("Banana Pancakes") && output.contains("Artist or director"))
    }

    @Test("--json output parses back; page 2 differs from page 1")
    func json() async throws {
        let (_, first, _) = try await run(["search", "jack johnson", "--media", "music", "--offline", "--json"])
        let (_, second, _) = try await run([
            "search", "jack johnson", "--media", "music", "--offline", "--json", "--page", "2",
        ])

        let one = try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
        let two = try JSONSerialization.jsonObject(with: Data(second.utf8)) as? [String: Any]
        #expect((one?["results"] as? [Any])?.count == 25)
        #expect(one?["page"] as? Int == 1 && two?["page"] as? Int == 2)
        #expect(first != second)
    }

    @Test("a usage error exits 64 with the usage text on standard error")
    func usage() async throws {
        let (status, output, error) = try await run(["search", "x", "--media", "vinyl"])

        #expect(status == 64 && output.isEmpty)
        #expect(error.contains("unknown media kind") && error.contains("Usage: mediasearch search"))
    }

    @Test("a plain-HTTP TMDB URL that is not loopback exits 64 without sending the key, unless allowed")
    func plainHTTPKeyRefused() async throws {
        let key = "SENTINEL-tmdb-key-\(UUID().uuidString.prefix(8))"
        let environment = ["MEDIASEARCH_TMDB_URL": "http://tmdb.example.invalid/3", "TMDB_API_KEY": key]

        let (status, output, error) = try await run(["popular"], environment: environment)
        let (allowedStatus, _, allowedError) = try await run(
            ["popular", "--allow-insecure-http"], environment: environment)

        #expect(status == 64 && output.isEmpty)
        #expect(error.hasPrefix("mediasearch: MEDIASEARCH_TMDB_URL "), "\(error)")
        #expect(error.contains("--allow-insecure-http") && !error.contains(key), "\(error)")
        // Allowed, it goes out (and cannot resolve the .invalid host).
        #expect(allowedStatus == 1 && allowedError.contains("could not reach tmdb.example.invalid"), "\(allowedError)")
    }

    @Test(
        "against the local fake TMDB, a refused key exits 1 with one sentence and no stack trace",
        .enabled(if: MediaServer.url != nil, "start the tests with scripts/test"))
    func serverFailure() async throws {
        let base = try #require(MediaServer.url, "start the tests with scripts/test")
        let (status, output, error) = try await run(
            ["popular"],
            environment: [
                "MEDIASEARCH_TMDB_URL": base.appendingPathComponent("3").absoluteString, "TMDB_API_KEY": "wrong",
            ]
        )

        #expect(status == 1 && output.isEmpty)
        #expect(
            error == "mediasearch: TMDB rejected the API key (401): Invalid API key: You must be granted a valid key.\n"
        )
    }
}
