import Courier
import Foundation
import Testing

@Suite(
    "TLS against a local HTTPS server",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct TLSTests {
    private func server() throws -> TLSServer {
        try #require(TLSServer.shared, "the HTTPS test server did not start (python3 and openssl are needed)")
    }

    private func send(_ transport: any HTTPTransport, to server: TLSServer) async -> Result<String, APIError> {
        let client = APIClient(baseURL: server.url, transport: transport)
        do {
            return .success(try await client.send(.get("hello", as: String.self)))
        } catch let error as APIError {
            return .failure(error)
        } catch {
            return .failure(APIError(.transport(.other), message: "\(error)"))
        }
    }

    @Test("a self-signed certificate is refused by default", arguments: TransportKind.allCases)
    func selfSignedRefused(transport: TransportKind) async throws {
        let result = await send(transport.make(), to: try server())

        #expect(result.failure?.kind == .transport(.tls), "\(result)")
    }

    @Test("the certificate is accepted when its CA is trusted")
    func customAuthority() async throws {
        let server = try server()
        let transport = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: server.certificate)))

        #expect(try await send(transport, to: server).get() == "secure")
    }

    @Test("the right public-key pin is accepted, a wrong one refused")
    func pinning() async throws {
        let server = try server()
        let right = CurlTransport(
            configuration: .init(
                tls: .init(certificateAuthorities: server.certificate, pinnedPublicKeyHashes: [server.publicKeyHash])))
        let wrong = CurlTransport(
            configuration: .init(
                tls: .init(
                    certificateAuthorities: server.certificate,
                    pinnedPublicKeyHashes: [Data(repeating: 7, count: 32).base64EncodedString()])))

        #expect(try await send(right, to: server).get() == "secure")
        let refused = await send(wrong, to: server)
        #expect(refused.failure?.kind == .transport(.tls), "\(refused)")
        #expect(refused.failure?.description.lowercased().contains("public key") == true, "\(refused)")
    }

    @Test("a wrong pin is refused even when verification is off")
    func pinningWithoutVerification() async throws {
        let server = try server()
        let transport = CurlTransport(
            configuration: .init(
                tls: .init(
                    verifiesCertificates: false, pinnedPublicKeyHashes: [Data(count: 32).base64EncodedString()])))
        let open = CurlTransport(configuration: .init(tls: .init(verifiesCertificates: false)))

        #expect(await send(transport, to: server).failure?.kind == .transport(.tls))
        #expect(try await send(open, to: server).get() == "secure")
    }
}
