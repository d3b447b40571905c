import Testing

@testable import Courier

/// Close frame payloads (RFC 6455 §5.5.1, §7.4) and which codes may travel: Autobahn 7.7.x's valid
/// codes, 7.9.x's invalid ones, and the IANA-registered 1012–1014.
@Suite("WebSocket close frame")
struct WebSocketCloseFrameTests {
    private func parse(_ payload: [UInt8]) -> Result<WebSocketCloseFrame, WebSocketProtocolViolation> {
        do throws(WebSocketProtocolViolation) {
            return .success(try WebSocketCloseFrame(parsing: payload))
        } catch {
            return .failure(error)
        }
    }

    private func code(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    @Test(
        "codes a peer may send (Autobahn 7.7.x, and 1012–1014 from the IANA registry)",
        arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999]
            as [UInt16])
    func validCodes(value: UInt16) throws {
        let frame = try parse(code(value) + Array("bye".utf8)).get()
        #expect(frame.code == WebSocketCloseCode(value))
        #expect(frame.reason == "bye")
    }

    @Test(
        "codes a peer may not send fail with 1002 (Autobahn 7.9.x, and 1015, 5000, 65535)",
        arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func invalidCodes(value: UInt16) {
        #expect(throws: WebSocketProtocolViolation.self) { try parse(code(value)).get() }
        if case .failure(let violation) = parse(code(value)) { #expect(violation.closeCode == .protocolError) }
    }

    @Test("an empty payload is a close without a code; one byte fails with 1002")
    func lengths() throws {
        #expect(try parse([]).get() == WebSocketCloseFrame(code: nil))
        if case .failure(let violation) = parse([0x03]) {
            #expect(violation.closeCode == .protocolError)
        } else {
            Issue.record("a one-byte close payload was accepted")
        }
    }

    @Test("a reason that is not UTF-8 fails with 1007 (Autobahn 7.5.1)")
    func invalidReason() {
        let payload = code(1000) + [UInt8](hex: "cebae1bdb9cf83cebcceb5eda080656469746564")
        if case .failure(let violation) = parse(payload) {
            #expect(violation.closeCode == .invalidPayloadData)
        } else {
            Issue.record("an invalid reason was accepted")
        }
        if case .failure(let violation) = parse(code(1000) + [0xCE]) {
            #expect(violation.closeCode == .invalidPayloadData)
        } else {
            Issue.record("a reason ending inside a code point was accepted")
        }
    }

    @Test("a sent reason is cut to 123 bytes at a code point boundary; no code, no payload")
    func sentPayload() {
        #expect(WebSocketCloseFrame(code: .normalClosure, reason: "ok").payload == [0x03, 0xE8, 0x6F, 0x6B])
        #expect(WebSocketCloseFrame(code: nil, reason: "ignored").payload == [])
        let long = String(repeating: "é", count: 100)  // 200 bytes
        let payload = WebSocketCloseFrame(code: .goingAway, reason: long).payload
        #expect(payload.count == 2 + 122)
        #expect(String(validating: payload[2...], as: UTF8.self) != nil)
        let ascii = WebSocketCloseFrame(code: .goingAway, reason: String(repeating: "a", count: 200)).payload
        #expect(ascii.count == 125)
    }

    @Test("the descriptions name the predefined codes")
    func descriptions() {
        #expect(WebSocketCloseCode.messageTooBig.description == "1009 (message too big)")
        #expect(WebSocketCloseCode(4321).description == "4321")
    }
}
