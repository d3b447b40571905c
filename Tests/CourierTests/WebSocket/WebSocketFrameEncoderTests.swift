import Testing

@testable import Courier

/// The client's frames: RFC 6455 §5.7's masked examples byte for byte, a fresh random key per
/// frame, the shortest length form, and fragmentation.
@Suite("WebSocket frame encoder")
struct WebSocketFrameEncoderTests {
    @Test("§5.7: \"Hello\" masked with 37 fa 21 3d, and the masked pong")
    func maskedHello() {
        let encoder = WebSocketFrameEncoder(maskKeys: .fixed(0x37fa_213d))
        let hello = Array("Hello".utf8)
        let text = hello.withUnsafeBytes { encoder.messageFrames(.text, payload: $0) }
        #expect(text == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(
            encoder.controlFrame(.pong, payload: hello) == [
                0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
            ])
    }

    @Test("every frame is masked, each with its own key from the CSPRNG")
    func randomKeys() {
        let encoder = WebSocketFrameEncoder()
        let payload = [UInt8](repeating: 0, count: 8)
        var keys: Set<UInt32> = []
        for _ in 0..<500 {
            let frame = payload.withUnsafeBytes { encoder.messageFrames(.binary, payload: $0) }
            #expect(frame[1] & 0x80 != 0)
            let key = frame[2..<6].reduce(0 as UInt32) { $0 << 8 | UInt32($1) }
            keys.insert(key)
            // A zero payload masked shows the key itself, repeated.
            #expect(Array(frame[6...]) == Array(frame[2..<6]) + Array(frame[2..<6]))
        }
        #expect(keys.count == 500)
    }

    @Test("lengths take their shortest form: 7 bits to 125, 16 bits to 65535, then 64 bits")
    func lengths() {
        let encoder = WebSocketFrameEncoder(maskKeys: .fixed(0))
        for (count, header) in [
            (0, [0x80]), (125, [0xFD]), (126, [0xFE, 0x00, 0x7E]), (65535, [0xFE, 0xFF, 0xFF]),
            (65536, [0xFF, 0, 0, 0, 0, 0, 1, 0, 0]),
        ] as [(Int, [UInt8])] {
            let frame = [UInt8](repeating: 7, count: count).withUnsafeBytes {
                encoder.messageFrames(.binary, payload: $0)
            }
            #expect(Array(frame[1..<(1 + header.count)]) == header, "\(count)")
            #expect(frame.count == 1 + header.count + 4 + count)
        }
    }

    @Test("a long message is fragmented: opcode then continuations, FIN on the last, RSV1 on the first only")
    func fragmentation() {
        let encoder = WebSocketFrameEncoder(maximumFramePayload: 4)
        let payload = Array("0123456789".utf8)
        let bytes = payload.withUnsafeBytes { encoder.messageFrames(.text, payload: $0, isCompressed: true) }
        let frames = clientFrames(bytes)
        #expect(frames.map(\.header.opcode) == [.text, .continuation, .continuation])
        #expect(frames.map(\.header.isFinal) == [false, false, true])
        #expect(frames.map(\.header.isCompressed) == [true, false, false])
        #expect(frames.map(\.payload) == [Array("0123".utf8), Array("4567".utf8), Array("89".utf8)])
        let exact = payload.prefix(8).withUnsafeBytes { encoder.messageFrames(.binary, payload: $0) }
        #expect(clientFrames(exact).count == 2)
        let empty = [UInt8]().withUnsafeBytes { encoder.messageFrames(.binary, payload: $0) }
        #expect(clientFrames(empty).map(\.header.isFinal) == [true])
    }

    @Test("masking at every offset and length matches byte-by-byte XOR")
    func maskingOffsets() {
        let key: UInt32 = 0xA1B2_C3D4
        let keyBytes: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
        for count in 0..<40 {
            for offset in 0..<5 {
                var bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 31 + 5) }
                let expected = bytes.enumerated().map { $0.element ^ keyBytes[($0.offset + offset) % 4] }
                bytes.withUnsafeMutableBytes { WebSocketMasking.apply(key, to: $0, offset: offset) }
                #expect(bytes == expected, "count \(count) offset \(offset)")
            }
        }
    }
}
