import Testing

@testable import Courier

/// The frame parser on RFC 6455 §5.7's examples and every frame rule, each input delivered whole, a
/// byte at a time and in uneven pieces.
@Suite("WebSocket frame parser")
struct WebSocketFrameParserTests {
    static let hello = Array("Hello".utf8)

    @Test("§5.7: a single-frame unmasked text message", arguments: WebSocketDelivery.allCases)
    func unmaskedHello(delivery: WebSocketDelivery) {
        let (frames, violation) = parseFrames([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], delivery)
        #expect(violation == nil)
        #expect(
            frames == [ParsedFrame(header: .init(isFinal: true, opcode: .text, payloadLength: 5), payload: Self.hello)])
    }

    @Test("§5.7: a single-frame masked text message, read as a server reads it", arguments: WebSocketDelivery.allCases)
    func maskedHello(delivery: WebSocketDelivery) {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        let (frames, violation) = parseFrames(bytes, delivery, readsClientFrames: true)
        #expect(violation == nil)
        #expect(frames.map(\.payload) == [Self.hello])
        #expect(frames.first?.header.maskKey == 0x37fa_213d)
    }

    @Test("§5.7: a fragmented unmasked text message", arguments: WebSocketDelivery.allCases)
    func fragmented(delivery: WebSocketDelivery) {
        let (frames, violation) = parseFrames([0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f], delivery)
        #expect(violation == nil)
        #expect(frames.map(\.header.opcode) == [.text, .continuation])
        #expect(frames.map(\.header.isFinal) == [false, true])
        #expect(frames.map(\.payload) == [Array("Hel".utf8), Array("lo".utf8)])
    }

    @Test("§5.7: an unmasked ping; its masked pong", arguments: WebSocketDelivery.allCases)
    func pingPong(delivery: WebSocketDelivery) {
        let ping = parseFrames([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], delivery)
        #expect(ping.frames.map(\.header.opcode) == [.ping])
        #expect(ping.frames.map(\.payload) == [Self.hello])
        let pong = parseFrames(
            [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58], delivery, readsClientFrames: true)
        #expect(pong.frames.map(\.header.opcode) == [.pong])
        #expect(pong.frames.map(\.payload) == [Self.hello])
    }

    @Test(
        "§5.7: 256 bytes with a 16-bit length, 64 KiB with a 64-bit length",
        arguments: [WebSocketDelivery.whole, .sevens])
    func longLengths(delivery: WebSocketDelivery) {
        let small = (0..<256).map { UInt8(truncatingIfNeeded: $0) }
        let first = parseFrames([0x82, 0x7E, 0x01, 0x00] + small, delivery)
        #expect(first.violation == nil)
        #expect(first.frames.map(\.payload) == [small])
        let large = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let second = parseFrames([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + large, delivery)
        #expect(second.violation == nil)
        #expect(second.frames.first?.header.payloadLength == 65536)
        #expect(second.frames.map(\.payload) == [large])
    }

    @Test("the boundaries of each length form: 125, 126, 65535, 65536")
    func lengthBoundaries() {
        for count in [0, 125, 126, 65535, 65536] {
            let payload = [UInt8](repeating: 0x2A, count: count)
            let (frames, violation) = parseFrames(serverFrame(.binary, payload))
            #expect(violation == nil, "\(count)")
            #expect(frames.map(\.payload) == [payload], "\(count)")
        }
    }

    @Test("frames after frames, in one read: each is reported in order")
    func several() {
        let bytes = serverFrame(.text, Array("a".utf8)) + serverFrame(.ping) + serverFrame(.binary, [1, 2, 3])
        for delivery in WebSocketDelivery.allCases {
            #expect(parseFrames(bytes, delivery).frames.map(\.header.opcode) == [.text, .ping, .binary])
        }
    }

    private func violation(
        _ bytes: [UInt8], allowedReservedBits: UInt8 = 0, maximumFramePayload: Int = 1 << 20,
        readsClientFrames: Bool = false
    ) -> WebSocketCloseCode? {
        var codes: Set<WebSocketCloseCode?> = []
        for delivery in WebSocketDelivery.allCases {
            codes.insert(
                parseFrames(
                    bytes, delivery, maximumFramePayload: maximumFramePayload, allowedReservedBits: allowedReservedBits,
                    readsClientFrames: readsClientFrames
                ).violation?.closeCode)
        }
        #expect(codes.count == 1, "the outcome depends on how the bytes arrive")
        return codes.first ?? nil
    }

    @Test("reserved opcodes fail with 1002", arguments: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as [UInt8])
    func reservedOpcodes(opcode: UInt8) {
        #expect(violation([0x80 | opcode, 0x00]) == .protocolError)
    }

    @Test("reserved bits without an extension fail with 1002", arguments: [0x40, 0x20, 0x10, 0x70] as [UInt8])
    func reservedBits(bits: UInt8) {
        #expect(violation([0x81 | bits, 0x01, 0x61]) == .protocolError)
    }

    @Test("with permessage-deflate, RSV1 only on a data message's first frame; RSV2 and RSV3 never")
    func compressedBit() {
        #expect(violation([0xC1, 0x01, 0x61], allowedReservedBits: 0x40) == nil)
        #expect(violation([0x41, 0x01, 0x61, 0xC0, 0x01, 0x61], allowedReservedBits: 0x40) == .protocolError)
        #expect(violation([0xC9, 0x00], allowedReservedBits: 0x40) == .protocolError)
        #expect(violation([0xA1, 0x01, 0x61], allowedReservedBits: 0x40) == .protocolError)
        #expect(violation([0x91, 0x01, 0x61], allowedReservedBits: 0x40) == .protocolError)
    }

    @Test("control frames: more than 125 bytes or without FIN fail with 1002; 125 is fine")
    func controlFrames() {
        #expect(violation(rawFrame(0x89, [125], payload: [UInt8](repeating: 0, count: 125))) == nil)
        #expect(violation(rawFrame(0x89, [126, 0, 126], payload: [UInt8](repeating: 0, count: 126))) == .protocolError)
        #expect(violation(rawFrame(0x8A, [127, 0, 0, 0, 0, 0, 0, 1, 0])) == .protocolError)
        #expect(violation(rawFrame(0x09, [0])) == .protocolError)
        #expect(violation(rawFrame(0x08, [0])) == .protocolError)
        #expect(violation(rawFrame(0x0A, [0])) == .protocolError)
    }

    @Test("a length not in its shortest form, or with the 64-bit MSB set, fails with 1002")
    func nonMinimalLengths() {
        #expect(violation(rawFrame(0x82, [126, 0, 125], payload: [UInt8](repeating: 0, count: 125))) == .protocolError)
        #expect(violation(rawFrame(0x82, [126, 0, 0])) == .protocolError)
        #expect(violation(rawFrame(0x82, [127, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF])) == .protocolError)
        #expect(violation(rawFrame(0x82, [127, 0, 0, 0, 0, 0, 0, 0, 5])) == .protocolError)
        #expect(violation(rawFrame(0x82, [127, 0x80, 0, 0, 0, 0, 0, 0, 0])) == .protocolError)
        #expect(violation(rawFrame(0x82, [127, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])) == .protocolError)
    }

    @Test("a masked server frame fails with 1002 (an unmasked client frame too, read as a server)")
    func masking() {
        #expect(violation([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]) == .protocolError)
        #expect(violation([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], readsClientFrames: true) == .protocolError)
    }

    @Test("a data frame over the limit fails with 1009 from its header, before its payload arrives")
    func tooBig() {
        // Only the header: the parser must not wait for (or buffer) the 2^40 bytes announced.
        #expect(
            violation(rawFrame(0x82, [127, 0, 0, 0x01, 0, 0, 0, 0, 0]), maximumFramePayload: 1 << 20) == .messageTooBig)
        #expect(violation(rawFrame(0x82, [126, 0x01, 0x00]), maximumFramePayload: 255) == .messageTooBig)
        #expect(
            violation(
                rawFrame(0x82, [126, 0x01, 0x00], payload: .init(repeating: 0, count: 256)), maximumFramePayload: 256)
                == nil)
        // Control frames have their own limit (125), whatever the data limit.
        #expect(
            violation(rawFrame(0x89, [100], payload: .init(repeating: 0, count: 100)), maximumFramePayload: 10) == nil)
    }

    @Test("a violation is reported once and the parser stays failed")
    func staysFailed() {
        var parser = WebSocketFrameParser(maximumFramePayload: 100)
        var thrown = 0
        for bytes in [[0x83, 0x00], serverFrame(.text, [0x61])] as [[UInt8]] {
            do throws(WebSocketProtocolViolation) {
                try parser.parse(bytes) { _ in }
            } catch {
                thrown += 1
            }
        }
        #expect(thrown == 2)
    }

    @Test("the payload is handed on as it arrives: a frame's bytes are never all held at once")
    func streamsPayload() throws {
        var parser = WebSocketFrameParser(maximumFramePayload: 1 << 20)
        var pieces: [Int] = []
        try parser.parse([0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 1, count: 100)) { event in
            if case .payload(let bytes) = event { pieces.append(bytes.count) }
        }
        #expect(pieces == [100])
        #expect(!parser.isAtFrameBoundary)
        try parser.parse([UInt8](repeating: 1, count: 156)) { event in
            if case .payload(let bytes) = event { pieces.append(bytes.count) }
        }
        #expect(pieces == [100, 156])
        #expect(parser.isAtFrameBoundary)
    }
}
