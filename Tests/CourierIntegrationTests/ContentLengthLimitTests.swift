import ChildProcess
import Courier
import Foundation
import Testing

/// A response whose `Content-Length` is near `Int64.max`.
///
/// FoundationNetworking (Linux) kills the process for a value from 2^63 − 512 to 2^63 − 1: its
/// libcurl header callback reads the length as a `Double` (`CURLINFO_CONTENT_LENGTH_DOWNLOAD`),
/// which rounds those values up to 2^63, and converts it back with `Int64(_:)`, which traps. That
/// runs inside libcurl's header callback, before any delegate method, so Courier cannot stop it
/// (README, "Known gaps"). The request runs in a child process (`CourierFetch`); the test fails
/// the day a toolchain stops crashing, so the known gap can be removed. CurlTransport answers
/// `responseTooLarge` for the same heads.
@Suite("Content-Length near Int64.max", .timeLimit(.minutes(1)))
struct ContentLengthLimitTests {
    /// The values FoundationNetworking crashes on: the two ends of the range.
    static let crashing = ["9223372036854775807", "9223372036854775296"]

    static let isFoundationNetworking: Bool = {
        #if canImport(FoundationNetworking)
            true
        #else
            false
        #endif
    }()

    /// `CourierFetch` next to the test bundle, where `swift build` puts every product.
    private static let program: URL? = {
        let candidates = [
            Bundle.main.executableURL, Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]),
        ]
        for case let start? in candidates {
            var folder = start.deletingLastPathComponent()
            for _ in 0..<3 {
                let candidate = folder.appendingPathComponent("CourierFetch")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }()

    /// How the child ended.
    struct Exit: CustomStringConvertible {
        let signal: Int32?
        let status: Int32
        let output: String

        var description: String {
            signal.map { "killed by signal \($0)" } ?? "exited with \(status): \(output)"
        }
    }

    /// Runs `CourierFetch transport url` and waits for it on a Dispatch thread, not on the
    /// cooperative pool.
    private static func fetch(_ transport: String, _ url: URL) async throws -> Exit {
        let program = try #require(program, "build the CourierFetch product first (scripts/test does)")
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        var environment = ProcessInfo.processInfo.environment
                        environment["SWIFT_BACKTRACE"] = "enable=no"
                        let process = try ChildProcess(
                            program.path, [transport, url.absoluteString], environment: environment, output: .piped)
                        let data = process.output?.readDataToEndOfFile() ?? Data()
                        let end = process.wait()
                        return Exit(
                            signal: end.signal, status: end.status ?? -1,
                            output: String(decoding: data, as: UTF8.self).trimmingCharacters(
                                in: .whitespacesAndNewlines))
                    })
            }
        }
    }

    private static func lengthURL(_ server: ScriptServer, _ value: String) -> URL {
        server.url.appending(path: "length").appending(queryItems: [URLQueryItem(name: "value", value: value)])
    }

    @Test(
        "URLSessionTransport on Linux: FoundationNetworking kills the process for a Content-Length from 2^63-512 to 2^63-1 (known gap)",
        .enabled(if: isFoundationNetworking, "only FoundationNetworking has this defect"),
        arguments: crashing)
    func foundationNetworkingCrashes(value: String) async throws {
        let server = try await ScriptServer.start(script: "wire.py")

        let exit = try await Self.fetch("urlSession", Self.lengthURL(server, value))

        // A Swift trap: SIGILL on x86_64, SIGTRAP on arm64.
        let crashed = exit.signal == SIGILL || exit.signal == SIGTRAP
        #expect(
            crashed,
            """
            FoundationNetworking no longer crashes on Content-Length \(value) (the child \(exit)): remove the \
            known gap from README.md and scripts/reliability, and this test
            """)
    }

    @Test(
        "just outside that range URLSessionTransport fails with a typed error and the process lives",
        arguments: [
            ("9223372036854775295", "transport(responseTooLarge)"),
            ("9223372036854775808", "transport(badResponse)"),
            ("99999999999999999999", "transport(badResponse)"),
            ("-1", "transport(badResponse)"),
        ])
    func neighbours(value: String, kind: String) async throws {
        let server = try await ScriptServer.start(script: "wire.py")

        let exit = try await Self.fetch("urlSession", Self.lengthURL(server, value))

        #expect(exit.signal == nil && exit.status == 1, "\(exit)")
        #expect(exit.output.hasPrefix("error \(kind):"), "\(exit)")
    }

    @Test(
        "CurlTransport refuses lengths with blanks inside or on two lines as framing, sent or streamed",
        arguments: [["9 9 9 9 9 9 9 9 9 9 9"], ["5", "99999999999"], ["99999999999", "5"], ["5", "5 5"]])
    func curlRefusesOddLengths(values: [String]) async throws {
        let server = try await ScriptServer.start(script: "wire.py")
        let url = server.url.appending(path: "length").appending(
            queryItems: values.map { URLQueryItem(name: "value", value: $0) })

        let sent = try await #require(throws: APIError.self) {
            try await CurlTransport().send(HTTPRequest(method: .get, url: url))
        }
        let client = APIClient(baseURL: server.url, transport: CurlTransport())
        let streamed = try await #require(throws: APIError.self) {
            try await client.stream(
                Request<Data>(path: "length", query: Query(values.map { URLQueryItem(name: "value", value: $0) })))
        }

        // Before: the call without a stream read the first digits, or the last line, as a length
        // over the limit (responseTooLarge).
        #expect(sent.kind == .transport(.badResponse), "\(sent)")
        #expect(streamed.kind == .transport(.badResponse), "\(streamed)")
    }

    @Test(
        "CurlTransport answers responseTooLarge for those heads, and badResponse for a length no Int holds",
        arguments: crashing.map { ($0, "responseTooLarge") } + [
            ("9223372036854775295", "responseTooLarge"), ("9223372036854775808", "badResponse"),
            ("99999999999999999999", "badResponse"),
        ])
    func curlAnswersTooLarge(value: String, failure: String) async throws {
        let server = try await ScriptServer.start(script: "wire.py")

        let error = try await #require(throws: APIError.self) {
            try await CurlTransport().send(HTTPRequest(method: .get, url: Self.lengthURL(server, value)))
        }

        #expect(error.kind == .transport(TransportFailure(failure)), "\(error)")
    }
}
