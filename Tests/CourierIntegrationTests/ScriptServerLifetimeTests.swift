import ChildProcess
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The servers of `scripts/servers/` end by themselves, even when started with SIGTERM blocked and
/// ignored (a `Process` started from a Dispatch thread inherits it blocked): at their `--lifetime`,
/// on SIGTERM, and when the process that started them ends. Servers that did not (proxy.py waited in
/// accept() past its lifetime, every one ignored `kill`) outlived the tests by the dozen.
@Suite(
    "Test servers end by themselves",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(2))
)
struct ScriptServerLifetimeTests {
    static let scripts = [
        "proxy.py", "tls.py", "sink.py", "files.py", "faults.py", "mediaapi.py", "wire.py", "cache.py", "socks.py",
        "h2c.py",
    ]

    /// A self-signed certificate and its key for tls.py, made once.
    private static let certificate: Result<(certificate: String, key: String), any Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-lifetime-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        // No pipe (ScriptServer.shell reads one to its end): a server started meanwhile could hold it open.
        let openssl = try ChildProcess(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        guard openssl.wait().status == 0 else { throw CocoaError(.executableLoad) }
        return (certificate, key)
    }

    /// What `script` needs besides `--lifetime`.
    private static func arguments(_ script: String) throws -> [String] {
        switch script {
        case "tls.py":
            let files = try certificate.get()
            return ["--cert", files.certificate, "--key", files.key]
        case "files.py": return ["--static", FileManager.default.temporaryDirectory.path]
        default: return []
        }
    }

    /// Waits until `isRunning` is false, 30 s at most (a generous bound: the servers end within a
    /// second); whether it did.
    private func ends(_ isRunning: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while isRunning() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(100))
        }
        return true
    }

    /// Whether process `pid`, not a child of ours, is running: it exists and is not a zombie.
    private func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        #if os(Linux)
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let name = stat.range(of: ") ", options: .backwards)
            else { return false }
            return stat[name.upperBound...].first != "Z"
        #else
            return true
        #endif
    }

    @Test("a server ends at its lifetime, whatever its threads are blocked in", arguments: scripts)
    func endsAtItsLifetime(script: String) async throws {
        let server = try await ScriptServer.start(
            script: script, arguments: Self.arguments(script), lifetime: 2, blockingTermination: true)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }

        #expect(try await ends { server.isRunning }, "\(script) is running 30 s after its 2 s lifetime")
    }

    @Test("a server started with SIGTERM blocked and ignored ends on SIGTERM", arguments: scripts)
    func endsOnSIGTERM(script: String) async throws {
        let server = try await ScriptServer.start(
            script: script, arguments: Self.arguments(script), lifetime: 300, blockingTermination: true)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }

        server.terminate()

        #expect(try await ends { server.isRunning }, "\(script) is running 30 s after SIGTERM")
    }

    @Test("a server ends when the process that started it ends", arguments: scripts)
    func endsWithItsParent(script: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-parent-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("server.log").path
        // A shell starts the server in the background (SIGTERM blocked), writes its PID, waits for its
        // announcement and exits. No pipe: a server that outlived the shell would hold it open.
        let shell = try ChildProcess(
            "/bin/sh",
            [
                "-c",
                #"log=$1; shift; python3 -c "$0" "$@" >"$log" 2>&1 & echo $! >"$log.pid";"#
                    + #" for _ in $(seq 1 300); do grep -q Listening "$log" && exit 0; sleep 0.1; done; exit 1"#,
                ScriptServer.blockingTermination, log, "python3",
                ScriptServer.repository.appendingPathComponent("scripts/servers/\(script)").path,
            ] + (try Self.arguments(script)) + ["--lifetime", "300"])
        // Its own PID, not isRunning: Foundation counts a process as running while any process it
        // started (the server here) holds a descriptor the process was given.
        let shellProcess = shell.processIdentifier
        try #require(try await ends { isRunning(shellProcess) }, "the shell that starts \(script) did not end")
        try #require(
            (try? String(contentsOfFile: log, encoding: .utf8))?.contains("Listening") == true,
            "\(script) did not start")
        let pid = try String(contentsOfFile: log + ".pid", encoding: .utf8)
        let server = try #require(Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { if isRunning(server) { kill(server, SIGKILL) } }

        #expect(try await ends { isRunning(server) }, "\(script) is running 30 s after its parent ended")
    }
}
