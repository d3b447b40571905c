import Foundation
import Testing

@testable import Courier

/// permessage-deflate on RFC 7692 §7.2.3's examples, context takeover kept or reset, and a deflate
/// bomb that must fail with 1009 in bounded memory.
@Suite("permessage-deflate")
struct PerMessageDeflateTests {
    static let kept = PerMessageDeflate.Parameters()
    static let reset = PerMessageDeflate.Parameters(serverNoContextTakeover: true, clientNoContextTakeover: true)

    private func assemble(
        _ bytes: [UInt8], _ delivery: WebSocketDelivery = .whole, compression: PerMessageDeflate.Parameters = kept,
        maximumMessageSize: Int = 1 << 20
    ) -> (outputs: [WebSocketMessageAssembler.Output], violation: WebSocketProtocolViolation?) {
        WebSocketMessageAssemblerTests.assemble(
            bytes, delivery, maximumMessageSize: maximumMessageSize, compression: compression)
    }

    @Test("§7.2.3.1: \"Hello\" compressed in one frame, and in two fragments", arguments: WebSocketDelivery.allCases)
    func hello(delivery: WebSocketDelivery) {
        let one: [UInt8] = [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]
        #expect(assemble(one, delivery).outputs == [.message(.text("Hello"))])
        let two: [UInt8] = [0x41, 0x03, 0xf2, 0x48, 0xcd, 0x80, 0x04, 0xc9, 0xc9, 0x07, 0x00]
        #expect(assemble(two, delivery).outputs == [.message(.text("Hello"))])
    }

    @Test("§7.2.3.2: the second \"Hello\" refers to the first one's window")
    func sharedWindow() {
        let bytes: [UInt8] = [
            0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00,
        ]
        #expect(assemble(bytes).outputs == [.message(.text("Hello")), .message(.text("Hello"))])
        // With server_no_context_takeover the window is gone: the back reference cannot inflate.
        #expect(assemble(bytes, compression: Self.reset).violation?.closeCode == .invalidPayloadData)
    }

    @Test("§7.2.3.3–§7.2.3.5: a stored block, a block with BFINAL, two blocks in one message")
    func blockKinds() {
        let stored: [UInt8] = [0xc1, 0x0b, 0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00]
        #expect(assemble(stored).outputs == [.message(.text("Hello"))])
        let final: [UInt8] = [0xc1, 0x08, 0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00]
        // After BFINAL the next message starts with a fresh window: it still inflates.
        #expect(assemble(final + final).outputs == [.message(.text("Hello")), .message(.text("Hello"))])
        let twoBlocks: [UInt8] = [
            0xc1, 0x0d, 0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00,
        ]
        #expect(assemble(twoBlocks).outputs == [.message(.text("Hello"))])
    }

    @Test("the deflater writes §7.2.3's bytes: the window kept, or reset each message")
    func deflaterBytes() throws {
        let hello = Array("Hello".utf8)
        let keeping = try PerMessageDeflater(Self.kept)
        #expect(hello.withUnsafeBytes { keeping.deflate($0) } == [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        #expect(hello.withUnsafeBytes { keeping.deflate($0) } == [0xf2, 0x00, 0x11, 0x00, 0x00])
        let resetting = try PerMessageDeflater(Self.reset)
        for _ in 0..<3 {
            #expect(hello.withUnsafeBytes { resetting.deflate($0) } == [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        }
    }

    @Test("what the deflater writes, the inflater reads back: many messages, both context modes, window sizes")
    func roundTrip() throws {
        for parameters in [
            Self.kept, Self.reset, PerMessageDeflate.Parameters(serverMaxWindowBits: 9, clientMaxWindowBits: 9),
        ] {
            let deflater = try PerMessageDeflater(parameters)
            var wire: [UInt8] = []
            var expected: [WebSocketMessageAssembler.Output] = []
            for index in 0..<20 {
                let text =
                    String(repeating: "message \(index % 3) with some repetition ", count: index * 7) + "é\(index)"
                let compressed = Array(text.utf8).withUnsafeBytes { deflater.deflate($0) }
                wire += compressed.withUnsafeBytes {
                    WebSocketFrameEncoder(maskKeys: .unmasked, maximumFramePayload: 50).messageFrames(
                        .text, payload: $0, isCompressed: true)
                }
                expected.append(.message(.text(text)))
            }
            // The server's side mirrors the client's: reset when the client resets.
            let receiving = PerMessageDeflate.Parameters(
                serverNoContextTakeover: parameters.clientNoContextTakeover,
                serverMaxWindowBits: parameters.clientMaxWindowBits)
            let (outputs, violation) = assemble(wire, .sevens, compression: receiving)
            #expect(violation == nil)
            #expect(outputs == expected)
        }
    }

    @Test("compressed and uncompressed messages mix on one connection")
    func mixed() {
        let bytes: [UInt8] =
            [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00] + serverFrame(.text, Array("plain".utf8))
            + [0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00]
        #expect(
            assemble(bytes).outputs == [.message(.text("Hello")), .message(.text("plain")), .message(.text("Hello"))])
    }

    @Test("data that does not inflate fails with 1007")
    func corrupt() {
        #expect(assemble([0xc1, 0x03, 0xff, 0xff, 0xff]).violation?.closeCode == .invalidPayloadData)
    }

    @Test("compressed text that inflates to invalid UTF-8 fails with 1007")
    func compressedInvalidText() throws {
        let deflater = try PerMessageDeflater(Self.kept)
        let compressed = [UInt8](hex: "cebae1bdb9eda080").withUnsafeBytes { deflater.deflate($0) }
        let frame = compressed.withUnsafeBytes {
            WebSocketFrameEncoder(maskKeys: .unmasked).messageFrames(.text, payload: $0, isCompressed: true)
        }
        #expect(assemble(frame).violation?.closeCode == .invalidPayloadData)
    }

    @Test("a deflate bomb fails with 1009 once past the limit, inflated in steps, never whole")
    func bomb() throws {
        // 32 MiB of zeros deflate to about 32 KiB.
        let zeros = [UInt8](repeating: 0, count: 32 << 20)
        let compressed = zeros.withUnsafeBytes { try! PerMessageDeflater(Self.kept).deflate($0) }
        #expect(compressed.count < 64 << 10)
        let inflater = try PerMessageInflater(Self.kept)
        var produced = 0
        var largestPiece = 0
        var violation: WebSocketProtocolViolation?
        do {
            try compressed.withUnsafeBytes { input in
                try inflater.inflate(input, produced: &produced, limit: 1 << 20) { piece in
                    largestPiece = max(largestPiece, piece.count)
                }
            }
        } catch {
            violation = error as? WebSocketProtocolViolation
        }
        #expect(violation?.closeCode == .messageTooBig)
        #expect(produced <= 1 << 20)
        #expect(largestPiece <= inflater.step)
        // Through the assembler: the same 1009, the message never kept whole.
        let frame = compressed.withUnsafeBytes {
            WebSocketFrameEncoder(maskKeys: .unmasked).messageFrames(.binary, payload: $0, isCompressed: true)
        }
        #expect(assemble(frame, maximumMessageSize: 1 << 20).violation?.closeCode == .messageTooBig)
        // Exactly at the limit is fine.
        let small = [UInt8](repeating: 0, count: 1 << 16)
        let smallFrame = small.withUnsafeBytes { try! PerMessageDeflater(Self.kept).deflate($0) }.withUnsafeBytes {
            WebSocketFrameEncoder(maskKeys: .unmasked).messageFrames(.binary, payload: $0, isCompressed: true)
        }
        #expect(assemble(smallFrame, maximumMessageSize: 1 << 16).outputs == [.message(.binary(Data(small)))])
        #expect(assemble(smallFrame, maximumMessageSize: (1 << 16) - 1).violation?.closeCode == .messageTooBig)
    }
}

/// What the `websocket` fuzz target found on its first run (2026-12-02): the outcome of a compressed
/// message depended on how its bytes were cut. zlib can inflate output and meet bad data in the
/// same call; the inflater reported the bad data (1007) before looking at the output, so a message
/// read whole failed with 1007 where, read in pieces, the output passed the limit first (1009).
/// Now everything happens in stream order: output up to the limit, the limit, then the bad data.
@Suite("permessage-deflate: outcome independent of the cut")
struct PerMessageDeflateOrderTests {
    /// A compressed message of `text`, then `trailer` appended to its compressed bytes.
    private func frame(_ text: [UInt8], trailer: [UInt8]) throws -> [UInt8] {
        let compressed = text.withUnsafeBytes { try! PerMessageDeflater(.init()).deflate($0) }
        // The deflater removed the sync flush's 00 00 FF FF: put it back so the trailer starts a
        // block of its own, read in the same zlib call as the text when the message comes whole.
        let payload = compressed + [0x00, 0x00, 0xFF, 0xFF] + trailer
        return payload.withUnsafeBytes {
            WebSocketFrameEncoder(maskKeys: .unmasked).messageFrames(.text, payload: $0, isCompressed: true)
        }
    }

    @Test("output past the limit, then bad data: 1009 whatever the cut", arguments: WebSocketDelivery.allCases)
    func limitBeforeBadData(delivery: WebSocketDelivery) throws {
        // 0xFF starts a block of the reserved type 3: "invalid block type".
        let bytes = try frame([UInt8](repeating: 0x61, count: 8192), trailer: [0xFF, 0xFF])
        let outcome = WebSocketMessageAssemblerTests.assemble(
            bytes, delivery, maximumMessageSize: 4096, compression: .init())
        #expect(outcome.violation?.closeCode == .messageTooBig)
    }

    @Test("invalid text before the limit: 1007 whatever the cut", arguments: WebSocketDelivery.allCases)
    func invalidTextBeforeLimit(delivery: WebSocketDelivery) throws {
        let text = [UInt8](repeating: 0x61, count: 100) + [0xC0] + [UInt8](repeating: 0x62, count: 8192)
        let bytes = try frame(text, trailer: [])
        let outcome = WebSocketMessageAssemblerTests.assemble(
            bytes, delivery, maximumMessageSize: 4096, compression: .init())
        #expect(outcome.violation?.closeCode == .invalidPayloadData)
    }
}
