import Courier
import Foundation
import Testing

/// Mutual TLS with CurlTransport against `tls.py --client-ca`, under TLS 1.2 and TLS 1.3 (where the
/// server's refusal of a certificate arrives after the handshake, on the first read): the right
/// certificate in every form gets through; a wrong key, a wrong passphrase, a certificate the
/// server refuses or none at all each fail once with a message that says what to check, and the
/// passphrase is shown nowhere.
@Suite(
    "Client certificates (mutual TLS)",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(2))
)
struct ClientCertificateTests {
    private struct Peer: Decodable {
        let port: Int
        let client: String?
    }

    private static let versions = ["1.2", "1.3"]

    private func certificates() throws -> TestCertificates {
        try #require(TestCertificates.shared, "openssl could not make the test certificates")
    }

    private func transport(_ certificate: ClientCertificate?, _ pki: TestCertificates) -> CurlTransport {
        CurlTransport(
            configuration: .init(tls: .init(certificateAuthorities: pki.authority, clientCertificate: certificate)))
    }

    /// What the server saw of the client (its certificate's name), or the error.
    private func send(
        _ certificate: ClientCertificate?, version: String, log: LogLines = LogLines()
    ) async throws -> Result<Peer, APIError> {
        let pki = try certificates()
        let server = try await pki.server(requiresClientCertificate: true, version: version)
        let client = APIClient(
            baseURL: server.url, transport: transport(certificate, pki),
            middlewares: [
                ProxyAuthenticationTests.retry, LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true)),
            ])
        do {
            return .success(try await client.send(.get("peer", as: Peer.self)))
        } catch let error as APIError {
            return .failure(error)
        }
    }

    @Test(
        "the certificate gets through as PEM files, one combined PEM, an encrypted key and PKCS#12", arguments: versions
    )
    func accepted(version: String) async throws {
        let pki = try certificates()
        let forms: [ClientCertificate] = [
            .pem(certificate: pki.clientCertificate, privateKey: pki.clientKey),
            .pem(certificate: pki.clientCombined),
            .pem(
                certificate: pki.clientCertificate, privateKey: pki.encryptedClientKey,
                passphrase: TestCertificates.passphrase),
            .pkcs12(pki.clientBundle, passphrase: TestCertificates.passphrase),
        ]
        for form in forms {
            let peer = try await send(form, version: version).get()
            #expect(peer.client == "courier-client", "\(form)")
        }
    }

    @Test("a server that wants a certificate and gets none: clientCertificateRejected", arguments: versions)
    func noneShown(version: String) async throws {
        let error = try #require(try await send(nil, version: version).failure)

        // TLS 1.2 servers answer with a bare handshake failure, which names no certificate.
        let expected: TransportFailure = version == "1.3" ? .clientCertificateRejected : .tls
        #expect(error.kind == .transport(expected), "\(error)")
        #expect(error.message.contains("client certificate"), "\(error.message)")
    }

    @Test(
        "a certificate the server refuses (unknown CA, expired): clientCertificateRejected, never a lost connection",
        arguments: versions)
    func refusedByServer(version: String) async throws {
        let pki = try certificates()
        for certificate in [pki.strangerCertificate, pki.expiredCertificate] {
            let shown = ClientCertificate.pem(certificate: certificate, privateKey: pki.clientKey)
            let error = try #require(
                try await send(shown, version: version).failure, "\(certificate.lastPathComponent)")

            #expect(error.kind == .transport(.clientCertificateRejected), "\(certificate.lastPathComponent): \(error)")
            #expect(error.message.contains("refused the client certificate"), "\(error.message)")
        }
    }

    @Test(
        "a key that does not match, a wrong passphrase, a missing file: clientCertificateRejected, the passphrase nowhere"
    )
    func unusable() async throws {
        let pki = try certificates()
        let wrong = "SENTINEL-wrong-passphrase-\(UUID().uuidString.prefix(8))"
        let cases: [ClientCertificate] = [
            .pem(certificate: pki.clientCertificate, privateKey: pki.otherKey),
            .pem(certificate: pki.clientCertificate, privateKey: pki.encryptedClientKey, passphrase: wrong),
            .pem(certificate: pki.clientCertificate, privateKey: pki.encryptedClientKey),
            .pkcs12(pki.clientBundle, passphrase: wrong),
            .pem(certificate: pki.file("missing.pem")),
        ]
        for certificate in cases {
            let log = LogLines()
            let error = try #require(try await send(certificate, version: "1.3", log: log).failure, "\(certificate)")

            #expect(error.kind == .transport(.clientCertificateRejected), "\(certificate): \(error)")
            #expect(error.message.contains("passphrase"), "\(error.message)")
            for text in ProxyAuthenticationTests.everythingShown(error, log: log) + ["\(certificate)"] {
                #expect(!text.contains(wrong) && !text.contains(TestCertificates.passphrase), "\(text)")
            }
        }
    }

    @Test("a PKCS#12 bundle with legacy algorithms: clientCertificateRejected, saying to export it again")
    func legacyBundle() async throws {
        let pki = try certificates()
        try #require(
            FileManager.default.fileExists(atPath: pki.legacyClientBundle.path), "openssl made no legacy bundle")
        let certificate = ClientCertificate.pkcs12(pki.legacyClientBundle, passphrase: TestCertificates.passphrase)

        let error = try #require(try await send(certificate, version: "1.3").failure)

        #expect(error.kind == .transport(.clientCertificateRejected), "\(error)")
        #expect(error.message.contains("legacy"), "\(error.message)")
        #expect(!error.description.contains(TestCertificates.passphrase))
    }

    #if canImport(FoundationNetworking)
        @Test("URLSessionTransport on Linux, given a client certificate, fails at once rather than send without it")
        func urlSessionOnLinux() async throws {
            let pki = try certificates()
            let server = try await pki.server(requiresClientCertificate: true, version: "1.3")
            let transport = URLSessionTransport(
                configuration: .init(
                    clientCertificate: .pkcs12(pki.clientBundle, passphrase: TestCertificates.passphrase)))

            let error = await #expect(throws: APIError.self) {
                try await transport.send(HTTPRequest(url: server.url.appending(path: "peer")))
            }

            #expect(error?.kind == .transport(.clientCertificateRejected), "\(String(describing: error))")
            #expect(error?.message.contains("CurlTransport") == true)
            #expect(error?.description.contains(TestCertificates.passphrase) == false)
        }
    #endif

    @Test("a renewed certificate file is shown on the next new connection (no TLS session resumed)")
    func renewedCertificate() async throws {
        let pki = try certificates()
        let server = try await pki.server(requiresClientCertificate: true)
        let folder = pki.folder.path
        let renewed = "renewed-\(UUID().uuidString.prefix(8))"
        // The file the transport reads, renewed in place with another name (same key, same CA).
        _ = try ScriptServer.shell("cp '\(folder)/client.pem' '\(folder)/\(renewed).pem'")
        let transport = transport(
            .pem(certificate: pki.file("\(renewed).pem"), privateKey: pki.clientKey), pki)
        var request = HTTPRequest(url: server.url.appending(path: "peer"))
        // The server closes each connection after its answer: every request makes a new one.
        request.headers["Connection"] = "close"

        let before = try JSONDecoder().decode(Peer.self, from: try await transport.send(request).body)
        _ = try ScriptServer.shell(
            "cd '\(folder)' && openssl req -new -key client.key -subj /CN=courier-renewed 2>/dev/null"
                + " | openssl x509 -req -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile client.ext"
                + " -out '\(renewed).pem' 2>/dev/null")
        let after = try JSONDecoder().decode(Peer.self, from: try await transport.send(request).body)

        #expect(before.client == "courier-client")
        #expect(after.client == "courier-renewed", "the old certificate was shown again: a TLS session was resumed")
    }

    @Test("a transport's configuration, dumped, shows neither the passphrase nor the proxy's password")
    func configurationHidesSecrets() throws {
        let pki = try certificates()
        let password = "SENTINEL-proxy-password-\(UUID().uuidString.prefix(8))"
        let configuration = CurlTransport.Configuration(
            tls: .init(clientCertificate: .pkcs12(pki.clientBundle, passphrase: TestCertificates.passphrase)),
            proxy: URL(string: "http://svc:\(password)@proxy.example:3128")!,
            proxyCredential: ProxyCredential(user: "svc", password: password),
            proxyTLS: .init(
                clientCertificate: .pem(
                    certificate: pki.clientCertificate, privateKey: pki.encryptedClientKey,
                    passphrase: TestCertificates.passphrase)))
        var dumped = ""
        dump(configuration, to: &dumped)

        for text in [dumped, "\(configuration)", String(reflecting: configuration)] {
            #expect(!text.contains(password), "\(text)")
            #expect(!text.contains(TestCertificates.passphrase), "\(text)")
        }
        #expect("\(configuration)".contains("proxy.example"))
        // A user name alone may be the secret: an API token as the proxy's user.
        let token = "SENTINEL-proxy-token-\(UUID().uuidString.prefix(8))"
        let tokenOnly = CurlTransport.Configuration(proxy: URL(string: "http://\(token)@proxy.example:3128")!)
        var tokenDumped = ""
        dump(tokenOnly, to: &tokenDumped)
        let children = Mirror(reflecting: tokenOnly).children.map { "\($0.value)" }.joined()
        for text in [tokenDumped, "\(tokenOnly)", String(reflecting: tokenOnly), children] {
            #expect(!text.contains(token), "\(text)")
        }
        #expect("\(tokenOnly)".contains("proxy.example:3128"))
    }
}
