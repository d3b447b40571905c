import ChildProcess
import Foundation

/// A test server of `scripts/servers/` run by the tests themselves, on a free 127.0.0.1 port: the
/// script announces `Listening at: URL` and ends by itself after its `--lifetime`, on SIGTERM (it is
/// terminated when this object goes), or when the test process ends.
final class ScriptServer: Sendable {
    /// The URL the server announced, e.g. `http://127.0.0.1:40123`.
    let url: URL
    private let process: ChildProcess

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Starts `scripts/servers/<script>` with `arguments` and waits for its announcement on a
    /// Dispatch thread, so that a slow start never holds one of the cooperative pool's few threads.
    static func start(
        script: String, arguments: [String] = [], lifetime: Int = 300, blockingTermination: Bool = false
    ) async throws -> ScriptServer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try ScriptServer(
                            script: script, arguments: arguments, lifetime: lifetime,
                            blockingTermination: blockingTermination)
                    })
            }
        }
    }

    /// Starts `scripts/servers/<script>` with `arguments` and waits for its announcement, blocking
    /// the calling thread. With `blockingTermination`, the script starts with SIGTERM and SIGINT
    /// blocked and ignored, as a parent process can hand them down (a Dispatch thread blocks them).
    init(script: String, arguments: [String] = [], lifetime: Int = 300, blockingTermination: Bool = false) throws {
        process = try ChildProcess(
            "/usr/bin/env",
            (blockingTermination ? ["python3", "-c", Self.blockingTermination] : [])
                + ["python3", Self.repository.appendingPathComponent("scripts/servers/\(script)").path]
                + arguments + ["--lifetime", String(lifetime)],
            output: .piped)
        var announced = ""
        while !announced.contains("\n") {
            let data = process.output?.availableData ?? Data()
            guard !data.isEmpty else { break }
            announced += String(decoding: data, as: UTF8.self)
        }
        guard let range = announced.range(of: "https?://127.0.0.1:[0-9]+", options: .regularExpression),
            let url = URL(string: String(announced[range]))
        else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.url = url
    }

    /// Python that blocks and ignores SIGTERM and SIGINT, then execs its arguments in the same process:
    /// `python3 -c "$blockingTermination" COMMAND …`.
    static let blockingTermination = """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        os.execvp(sys.argv[1], sys.argv[1:])
        """

    /// The server's process identifier.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Whether the server is still running.
    var isRunning: Bool { process.isRunning }

    /// Sends the server SIGTERM.
    func terminate() {
        process.terminate()
    }

    deinit {
        process.terminate()
    }

    /// Runs a shell command and returns its standard output; throws when it fails.
    @discardableResult
    static func shell(_ command: String) throws -> String {
        let process = try ChildProcess("/bin/sh", ["-c", command], output: .piped)
        let data = process.output?.readDataToEndOfFile() ?? Data()
        guard process.wait().status == 0 else { throw CocoaError(.executableLoad) }
        return String(decoding: data, as: UTF8.self)
    }
}
