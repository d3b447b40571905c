import Foundation
import Testing

@testable import Courier

/// libcurl's words for TLS failures (as libcurl 7.88 with OpenSSL 3 writes them, probed with
/// `curl` against `tls.py --client-ca`), classified: the client certificate's problems are
/// `clientCertificateRejected` with advice, other alerts `tls`, never a lost connection.
@Suite("TLS failures classified from libcurl's text")
struct TLSFailureClassificationTests {
    private static let request = HTTPRequest(url: URL(string: "https://127.0.0.1:8443/")!)

    private static let withCertificate = CurlTransport.Configuration(
        tls: .init(clientCertificate: .pem(certificate: URL(fileURLWithPath: "/tmp/client.pem"))))

    private func kind(_ code: Int, _ text: String, _ configuration: CurlTransport.Configuration) -> TransportFailure? {
        guard
            let error = CurlFailure.tlsError(
                code: Int32(code), text: text, configuration: configuration,
                request: Self.request),
            case .transport(let failure) = error.kind
        else { return nil }
        return failure
    }

    @Test(
        "the client certificate's problems and refusals, under TLS 1.2 and 1.3",
        arguments: [
            (58, "unable to set private key file: 'other.key' type PEM"),
            (
                58,
                "could not parse PKCS12 file, check password, OpenSSL error error:11800071:PKCS12 routines::mac verify failure"
            ),
            (
                56,
                "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0"
            ),
            (
                56,
                "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000415:SSL routines::sslv3 alert certificate expired, errno 0"
            ),
            (56, "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000418:SSL routines::tlsv1 alert unknown ca, errno 0"),
            (35, "OpenSSL/3.0.19: error:0A000418:SSL routines::tlsv1 alert unknown ca"),
            (60, "SSL certificate verification failed"),
        ])
    func clientCertificate(code: Int, text: String) {
        #expect(kind(code, text, Self.withCertificate) == .clientCertificateRejected)
    }

    @Test("without a client certificate: a server's own verification failure and other alerts stay tls")
    func others() {
        let plain = CurlTransport.Configuration()
        #expect(
            kind(60, "SSL certificate problem: unable to get local issuer certificate", Self.withCertificate) == nil)
        #expect(kind(35, "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure", plain) == .tls)
        #expect(kind(35, "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version", plain) == .tls)
        #expect(
            kind(56, "OpenSSL SSL_read: error:0A000126:SSL routines::unexpected eof while reading, errno 0", plain)
                == nil)
        #expect(
            kind(56, "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000418:SSL routines::tlsv1 alert decode error", plain)
                == .tls)
    }

    @Test("descriptions and dumps of certificates and credentials hide the secret")
    func descriptions() {
        let secret = "SENTINEL-\(UUID().uuidString)"
        let values: [Any] = [
            ClientCertificate.pkcs12(URL(fileURLWithPath: "/tmp/c.p12"), passphrase: secret),
            ClientCertificate.pem(certificate: URL(fileURLWithPath: "/tmp/c.pem"), passphrase: secret),
            ProxyCredential(user: "svc", password: secret),
        ]
        for value in values {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [dumped, "\(value)", String(reflecting: value)] {
                #expect(!text.contains(secret), "\(text)")
                #expect(text.contains("redacted"), "\(text)")
            }
        }
    }

    @Test("no common TLS version behind an HTTPS proxy names the proxy's oldest version too")
    func proxyVersionAdvice() throws {
        let configuration = CurlTransport.Configuration(
            tls: .init(minimumVersion: .tls13), proxy: URL(string: "https://127.0.0.1:3129")!,
            proxyTLS: .init(minimumVersion: .tls12))
        let error = try #require(
            CurlFailure.tlsError(
                code: 35, text: "error:0A00042E:SSL routines::tlsv1 alert protocol version",
                configuration: configuration, request: Self.request))
        #expect(error.message.contains("TLS 1.2 for the HTTPS proxy"), "\(error.message)")
    }

    @Test("a reset before any response byte on a new connection showing a client certificate: refused, not lost")
    func resetAfterHandshake() {
        let url = URL(string: "https://127.0.0.1:8443/")!
        func refused(_ code: Int, _ text: String, headBytes: Int = 0, new: Bool = true) -> Bool {
            CurlTransfer.isCertificateRefusal(
                code: Int32(code), text: text, headBytes: headBytes, newConnection: new,
                configuration: Self.withCertificate, url: url)
        }
        #expect(refused(55, "Send failure: Connection reset by peer"))
        #expect(refused(56, "Recv failure: Connection reset by peer"))
        #expect(refused(56, "getpeername() failed with errno 107: Transport endpoint is not connected"))
        #expect(!refused(56, "Recv failure: Connection reset by peer", headBytes: 20))
        #expect(!refused(56, "Recv failure: Connection reset by peer", new: false))
        #expect(
            !CurlTransfer.isCertificateRefusal(
                code: 56, text: "Recv failure: Connection reset by peer", headBytes: 0, newConnection: true,
                configuration: .init(), url: url))
    }
}
