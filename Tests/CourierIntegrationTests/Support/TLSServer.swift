import Foundation

/// An HTTPS server on 127.0.0.1 with a certificate made for this test run: `openssl` generates a
/// self-signed certificate for IP 127.0.0.1 and `scripts/servers/tls.py` serves it, stopping by
/// itself after two minutes.
final class TLSServer: Sendable {
    /// The server's URL, `https://127.0.0.1:PORT`.
    let url: URL
    /// The certificate, to trust as a custom CA.
    let certificate: URL
    /// The base64 SHA-256 of the certificate's public key, as pinning takes it.
    let publicKeyHash: String
    private let process: Process

    /// The server for this test process, started on first use; `nil` when it cannot be started.
    static let shared: TLSServer? = try? TLSServer()

    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appendingPathComponent("cert.pem")
        let key = folder.appendingPathComponent("key.pem")
        try Self.shell(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1"
                + " -addext subjectAltName=IP:127.0.0.1 -keyout '\(key.path)' -out '\(certificate.path)' 2>/dev/null")
        publicKeyHash = try Self.shell(
            "openssl x509 -in '\(certificate.path)' -pubkey -noout | openssl pkey -pubin -outform der"
                + " | openssl dgst -sha256 -binary | base64"
        ).trimmingCharacters(in: .whitespacesAndNewlines)

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.repository.appendingPathComponent("scripts/servers/tls.py").path, "--cert",
            certificate.path, "--key", key.path, "--lifetime", "120",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var announced = ""
        while !announced.contains("\n") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            announced += String(decoding: data, as: UTF8.self)
        }
        guard let range = announced.range(of: "https://127.0.0.1:[0-9]+", options: .regularExpression),
            let url = URL(string: String(announced[range]))
        else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.url = url
    }

    deinit {
        process.terminate()
    }

    @discardableResult
    private static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return String(decoding: data, as: UTF8.self)
    }
}
