import Foundation
import Testing

@testable import Courier

/// The opening handshake (RFC 6455 §4.1, §4.2.2): the request's headers and every rule the 101
/// must meet.
@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
    /// RFC 6455 §1.3's example key and its accept value.
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    private func handshake(
        subprotocols: [String] = [], compression: PerMessageDeflate.Offer? = nil
    ) throws -> WebSocketHandshake {
        try WebSocketHandshake(subprotocols: subprotocols, compression: compression, key: Self.key)
    }

    private func answer(_ extra: HTTPHeaders = [:], removing: [HTTPHeaders.Name] = []) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": Self.accept,
        ]
        for name in removing { headers[name] = nil }
        for field in extra { headers.add(field.name, field.value) }
        return headers
    }

    private func failure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? WebSocketHandshakeFailure)?.reason ?? "\(error)"
        }
    }

    @Test("RFC 6455 §1.3: the accept value of dGhlIHNhbXBsZSBub25jZQ== is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    func acceptExample() {
        #expect(WebSocketHandshake.acceptValue(for: Self.key) == Self.accept)
    }

    @Test("a key is 16 bytes in base64, different every time")
    func keys() {
        let keys = (0..<200).map { _ in WebSocketHandshake.makeKey() }
        #expect(Set(keys).count == keys.count)
        for key in keys { #expect(Data(base64Encoded: key)?.count == 16) }
        // Every bit position varies: the bytes are random, not a counter or a timestamp.
        let decoded = keys.map { Array(Data(base64Encoded: $0)!) }
        for index in 0..<16 {
            #expect(decoded.reduce(0 as UInt8) { $0 | $1[index] } == 0xFF, "byte \(index)")
            #expect(decoded.reduce(0xFF as UInt8) { $0 & $1[index] } == 0, "byte \(index)")
        }
    }

    @Test("the request's headers: Upgrade, Connection, version 13, the key, subprotocols, the deflate offer")
    func requestHeaders() throws {
        let headers = try handshake(subprotocols: ["chat", "superchat"], compression: .init()).requestHeaders
        #expect(headers["Upgrade"] == "websocket")
        #expect(headers["Connection"] == "Upgrade")
        #expect(headers["Sec-WebSocket-Version"] == "13")
        #expect(headers["Sec-WebSocket-Key"] == Self.key)
        #expect(headers["Sec-WebSocket-Protocol"] == "chat, superchat")
        #expect(headers["Sec-WebSocket-Extensions"] == "permessage-deflate; client_max_window_bits")
        let plain = try handshake().requestHeaders
        #expect(plain["Sec-WebSocket-Protocol"] == nil)
        #expect(plain["Sec-WebSocket-Extensions"] == nil)
    }

    @Test("a subprotocol that is not a token, or offered twice, is refused before anything is sent")
    func badSubprotocols() {
        #expect(failure { _ = try WebSocketHandshake(subprotocols: ["a b"]) } != nil)
        #expect(failure { _ = try WebSocketHandshake(subprotocols: [""]) } != nil)
        #expect(failure { _ = try WebSocketHandshake(subprotocols: ["chat", "chat"]) } != nil)
    }

    @Test("a valid 101 is accepted, names in any case, Connection among other tokens")
    func accepted() throws {
        let shake = try handshake(subprotocols: ["chat"])
        let agreement = try shake.accept(status: 101, headers: answer(["Sec-WebSocket-Protocol": "chat"]))
        #expect(agreement.subprotocol == "chat")
        #expect(agreement.compression == nil)
        let loose: HTTPHeaders = [
            "upgrade": "WebSocket", "connection": "keep-alive, UPGRADE", "sec-websocket-accept": " \(Self.accept) ",
        ]
        #expect(try shake.accept(status: 101, headers: loose).subprotocol == nil)
    }

    /// An answer that breaks one rule: the valid answer with one header removed, replaced or added.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let testDescription: String
        var status = 101
        var removing: String?
        var adding: (name: String, value: String)?

        static func replacing(_ why: String, _ name: String, _ value: String) -> Refusal {
            Refusal(testDescription: why, removing: name, adding: (name, value))
        }
    }

    static let refusals: [Refusal] = [
        Refusal(testDescription: "a 200", status: 200),
        Refusal(testDescription: "no Upgrade", removing: "Upgrade"),
        .replacing("Upgrade: h2c", "Upgrade", "h2c"),
        .replacing("Upgrade listing two protocols", "Upgrade", "websocket, h2c"),
        Refusal(testDescription: "no Connection", removing: "Connection"),
        .replacing("Connection: keep-alive", "Connection", "keep-alive"),
        .replacing("Connection: upgraded (not the token)", "Connection", "upgraded"),
        Refusal(testDescription: "no accept", removing: "Sec-WebSocket-Accept"),
        .replacing("a wrong accept", "Sec-WebSocket-Accept", "x3JJHMbDL1EzLkh9GBhXDw=="),
        Refusal(testDescription: "the accept twice", adding: ("Sec-WebSocket-Accept", accept)),
        Refusal(testDescription: "a subprotocol not offered", adding: ("Sec-WebSocket-Protocol", "superchat")),
        Refusal(testDescription: "a subprotocol in another case", adding: ("Sec-WebSocket-Protocol", "Chat")),
        Refusal(testDescription: "two subprotocols", adding: ("Sec-WebSocket-Protocol", "chat, chat")),
        Refusal(
            testDescription: "an extension not offered", adding: ("Sec-WebSocket-Extensions", "x-webkit-deflate-frame")),
        Refusal(
            testDescription: "deflate when not offered", adding: ("Sec-WebSocket-Extensions", "permessage-deflate")),
    ]

    @Test("every rule of the answer fails the handshake", arguments: refusals)
    func refused(_ refusal: Refusal) throws {
        let shake = try handshake(subprotocols: ["chat"])
        var headers = answer()
        if let name = refusal.removing { headers[HTTPHeaders.Name(name)] = nil }
        if let (name, value) = refusal.adding { headers.add(HTTPHeaders.Name(name), value) }
        #expect(failure { _ = try shake.accept(status: refusal.status, headers: headers) } != nil)
    }

    @Test("the failure says what was wrong, and becomes an APIError of kind webSocketHandshakeFailed")
    func message() throws {
        let shake = try handshake()
        do throws(WebSocketHandshakeFailure) {
            _ = try shake.accept(
                status: 101, headers: answer(["Sec-WebSocket-Accept": "bogus"], removing: ["Sec-WebSocket-Accept"]))
            Issue.record("accepted")
        } catch {
            #expect(error.reason.contains("Sec-WebSocket-Accept"))
            #expect(error.reason.contains(Self.accept))
            #expect(error.apiError().kind == .transport(.webSocketHandshakeFailed))
        }
    }

    @Test("permessage-deflate accepted: the agreement carries the parameters")
    func deflateAgreed() throws {
        let shake = try handshake(compression: .init())
        let agreement = try shake.accept(
            status: 101,
            headers: answer([
                "Sec-WebSocket-Extensions": "permessage-deflate; server_no_context_takeover; client_max_window_bits=10"
            ]))
        #expect(
            agreement.compression
                == PerMessageDeflate.Parameters(serverNoContextTakeover: true, clientMaxWindowBits: 10))
        #expect(
            failure {
                _ = try shake.accept(
                    status: 101, headers: answer(["Sec-WebSocket-Extensions": "permessage-deflate, permessage-deflate"])
                )
            } != nil)
        #expect(
            failure {
                _ = try shake.accept(
                    status: 101, headers: answer(["Sec-WebSocket-Extensions": "permessage-deflate; =1"]))
            } != nil)
    }
}
