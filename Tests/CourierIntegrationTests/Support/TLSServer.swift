import Foundation

/// An HTTPS server on 127.0.0.1 with a certificate made for this test run: `openssl` generates a
/// self-signed certificate for IP 127.0.0.1 and `scripts/servers/tls.py` serves it, stopping by
/// itself after two minutes.
final class TLSServer: Sendable {
    /// The server's URL, `https://127.0.0.1:PORT`.
    var url: URL { server.url }
    /// The certificate, to trust as a custom CA.
    let certificate: URL
    /// The base64 SHA-256 of the certificate's public key, as pinning takes it.
    let publicKeyHash: String
    private let server: ScriptServer

    /// The server for this test process, started on first use; `nil` when it cannot be started.
    static let shared: TLSServer? = try? TLSServer()

    private init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appendingPathComponent("cert.pem")
        let key = folder.appendingPathComponent("key.pem")
        try ScriptServer.shell(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1"
                + " -addext subjectAltName=IP:127.0.0.1 -keyout '\(key.path)' -out '\(certificate.path)' 2>/dev/null")
        publicKeyHash = try ScriptServer.shell(
            "openssl x509 -in '\(certificate.path)' -pubkey -noout | openssl pkey -pubin -outform der"
                + " | openssl dgst -sha256 -binary | base64"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        server = try ScriptServer(
            script: "tls.py", arguments: ["--cert", certificate.path, "--key", key.path], lifetime: 300)
    }
}
