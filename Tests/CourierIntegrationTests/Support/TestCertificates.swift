import Foundation

/// A small PKI made with the `openssl` command line for this test process: a CA, a server
/// certificate for IP 127.0.0.1 and the name `courier-resolve.test`, client certificates (valid,
/// signed by another CA, expired), the client key in clear, encrypted and in a PKCS#12 bundle.
struct TestCertificates: Sendable {
    /// The passphrase of the encrypted key and of the PKCS#12 bundle: a sentinel no output may show.
    static let passphrase = "SENTINEL-key-passphrase-\(UUID().uuidString.prefix(8))"
    /// The name the server certificate is also made for (besides IP 127.0.0.1), which no DNS knows.
    static let serverName = "courier-resolve.test"

    let folder: URL
    var authority: URL { file("ca.pem") }
    var serverCertificate: URL { file("server.pem") }
    var serverKey: URL { file("server.key") }
    var clientCertificate: URL { file("client.pem") }
    var clientKey: URL { file("client.key") }
    var encryptedClientKey: URL { file("client-encrypted.key") }
    var clientBundle: URL { file("client.p12") }
    /// The same bundle protected with the legacy algorithms (RC2, 3DES) OpenSSL 3 refuses by default.
    var legacyClientBundle: URL { file("legacy.p12") }
    /// The client certificate and key in one PEM file.
    var clientCombined: URL { file("client-combined.pem") }
    /// The client's key signed by a CA the server does not know.
    var strangerCertificate: URL { file("stranger.pem") }
    /// A client certificate that expired when it was made.
    var expiredCertificate: URL { file("expired.pem") }
    /// A key that belongs to no certificate here.
    var otherKey: URL { file("other.key") }

    func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// The certificates of this test process, made on first use; `nil` when openssl failed.
    static let shared: TestCertificates? = try? TestCertificates()

    private init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out"
        let sign = "openssl x509 -req -CAcreateserial"
        let script = """
            set -e
            cd '\(folder.path)'
            \(key) ca.key && openssl req -x509 -key ca.key -days 2 -subj '/CN=Courier Test CA' -out ca.pem
            \(key) other-ca.key && openssl req -x509 -key other-ca.key -days 2 -subj '/CN=Other CA' -out other-ca.pem
            \(key) server.key && openssl req -new -key server.key -subj /CN=127.0.0.1 -out server.csr
            echo 'subjectAltName=IP:127.0.0.1,DNS:\(Self.serverName)' > server.ext
            \(sign) -in server.csr -CA ca.pem -CAkey ca.key -days 2 -extfile server.ext -out server.pem
            \(key) client.key && openssl req -new -key client.key -subj /CN=courier-client -out client.csr
            echo 'extendedKeyUsage=clientAuth' > client.ext
            \(sign) -in client.csr -CA ca.pem -CAkey ca.key -days 2 -extfile client.ext -out client.pem
            \(sign) -in client.csr -CA other-ca.pem -CAkey other-ca.key -days 2 -extfile client.ext -out stranger.pem
            \(sign) -in client.csr -CA ca.pem -CAkey ca.key -days 0 -extfile client.ext -out expired.pem
            openssl pkey -in client.key -aes256 -passout 'pass:\(Self.passphrase)' -out client-encrypted.key
            openssl pkcs12 -export -in client.pem -inkey client.key -passout 'pass:\(Self.passphrase)' -out client.p12
            openssl pkcs12 -export -legacy -in client.pem -inkey client.key -passout 'pass:\(Self.passphrase)' \
                -out legacy.p12 || true
            cat client.pem client.key > client-combined.pem
            \(key) other.key
            """
        try ScriptServer.shell("(\(script)) >/dev/null 2>&1")
        // `-days 0` ends the certificate's validity the second it starts.
        Thread.sleep(forTimeInterval: 1.1)
    }

    /// Starts `tls.py` with the server certificate; `clientAuthority` asks for a client certificate
    /// signed by the test CA; `version` pins the TLS version ("1.2" or "1.3").
    func server(requiresClientCertificate: Bool = false, version: String? = nil) async throws -> ScriptServer {
        var arguments = ["--cert", serverCertificate.path, "--key", serverKey.path]
        if requiresClientCertificate { arguments += ["--client-ca", authority.path] }
        if let version { arguments += ["--tls-version", version] }
        return try await ScriptServer.start(script: "tls.py", arguments: arguments, lifetime: 120)
    }
}
