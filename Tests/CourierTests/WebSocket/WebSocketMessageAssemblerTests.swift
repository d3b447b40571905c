import Foundation
import Testing

@testable import Courier

/// Reassembly of fragments, control frames between them, the message size limit and text checks
/// across fragments (RFC 6455 §5.4, §5.6, §8.1).
@Suite("WebSocket message assembler")
struct WebSocketMessageAssemblerTests {
    /// What `bytes` (server frames) assemble into, delivered as `delivery` cuts them.
    static func assemble(
        _ bytes: [UInt8], _ delivery: WebSocketDelivery = .whole, maximumMessageSize: Int = 1 << 20,
        compression: PerMessageDeflate.Parameters? = nil
    ) -> (outputs: [WebSocketMessageAssembler.Output], violation: WebSocketProtocolViolation?) {
        var parser = WebSocketFrameParser(
            maximumFramePayload: 1 << 30, allowedReservedBits: compression == nil ? 0 : 0x40)
        var assembler = try! WebSocketMessageAssembler(maximumMessageSize: maximumMessageSize, compression: compression)
        var outputs: [WebSocketMessageAssembler.Output] = []
        do throws(WebSocketProtocolViolation) {
            for piece in delivery.pieces(bytes) {
                try parser.parse(piece) { (event) throws(WebSocketProtocolViolation) in
                    if let output = try assembler.handle(event) { outputs.append(output) }
                }
            }
        } catch {
            return (outputs, error)
        }
        return (outputs, nil)
    }

    @Test("§5.7's fragmented Hello, with a ping between its fragments", arguments: WebSocketDelivery.allCases)
    func fragmentsAndControl(delivery: WebSocketDelivery) {
        let bytes: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6c] + [0x89, 0x02, 0x68, 0x69] + [0x80, 0x02, 0x6c, 0x6f]
        let (outputs, violation) = Self.assemble(bytes, delivery)
        #expect(violation == nil)
        #expect(outputs == [.ping(Array("hi".utf8)), .message(.text("Hello"))])
    }

    @Test("binary in many fragments, empty ones included, and a pong and a close between them")
    func binaryFragments() {
        let bytes =
            serverFrame(.binary, [1, 2], isFinal: false) + serverFrame(.continuation, [], isFinal: false)
            + serverFrame(.pong, [9]) + serverFrame(.continuation, [3], isFinal: false)
            + serverFrame(.continuation, [4, 5])
        let (outputs, violation) = Self.assemble(bytes)
        #expect(violation == nil)
        #expect(outputs == [.pong([9]), .message(.binary(Data([1, 2, 3, 4, 5])))])
        #expect(Self.assemble(serverFrame(.text)).outputs == [.message(.text(""))])
    }

    @Test("a continuation with no message open fails with 1002")
    func orphanContinuation() {
        #expect(Self.assemble(serverFrame(.continuation, [0x61])).violation?.closeCode == .protocolError)
        let afterEnd = serverFrame(.text, [0x61]) + serverFrame(.continuation, [0x62])
        #expect(Self.assemble(afterEnd).violation?.closeCode == .protocolError)
    }

    @Test("a new text or binary frame inside a fragmented message fails with 1002")
    func interleavedMessages() {
        let bytes = serverFrame(.text, [0x61], isFinal: false) + serverFrame(.binary, [0x62])
        #expect(Self.assemble(bytes).violation?.closeCode == .protocolError)
        let twice = serverFrame(.binary, [1], isFinal: false) + serverFrame(.binary, [2], isFinal: false)
        #expect(Self.assemble(twice).violation?.closeCode == .protocolError)
    }

    @Test("a message over the limit fails with 1009 from the header of the frame that passes it")
    func messageLimit() {
        let exact =
            serverFrame(.binary, [UInt8](repeating: 0, count: 60), isFinal: false)
            + serverFrame(.continuation, [UInt8](repeating: 0, count: 40))
        #expect(Self.assemble(exact, maximumMessageSize: 100).violation == nil)
        let over =
            serverFrame(.binary, [UInt8](repeating: 0, count: 60), isFinal: false)
            + serverFrame(.continuation, [UInt8](repeating: 0, count: 41))
        // Only the second header is needed to decide: its payload never has to arrive.
        let headerOnly = Array(over.prefix(2 + 60 + 2))
        #expect(Self.assemble(headerOnly, maximumMessageSize: 100).violation?.closeCode == .messageTooBig)
        // The limit is per message: the next one starts from zero.
        let two =
            serverFrame(.binary, [UInt8](repeating: 0, count: 80))
            + serverFrame(.binary, [UInt8](repeating: 0, count: 80))
        #expect(Self.assemble(two, maximumMessageSize: 100).outputs.count == 2)
    }

    @Test("text split inside a code point across fragments is fine", arguments: WebSocketDelivery.allCases)
    func splitCodePoint(delivery: WebSocketDelivery) {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let bytes =
            serverFrame(.text, [0x61, euro[0]], isFinal: false) + serverFrame(.continuation, [euro[1]], isFinal: false)
            + serverFrame(.continuation, [euro[2], 0x62])
        #expect(Self.assemble(bytes, delivery).outputs == [.message(.text("a€b"))])
    }

    @Test("invalid text fails with 1007 at the fragment that proves it (Autobahn 6.4.1), before the rest")
    func invalidTextFailsFast() {
        let first = serverFrame(.text, [UInt8](hex: "cebae1bdb9cf83cebcceb5"), isFinal: false)
        let second = serverFrame(.continuation, [UInt8](hex: "f4908080"), isFinal: false)
        // No third fragment: the second alone must fail the message.
        let (outputs, violation) = Self.assemble(first + second)
        #expect(outputs.isEmpty)
        #expect(violation?.closeCode == .invalidPayloadData)
        // Inside one frame too (6.4.3): the frame's first bytes suffice.
        let oneFrame = serverFrame(.text, [UInt8](hex: "cebae1bdb9cf83cebcceb5f4908080656469746564"))
        #expect(Self.assemble(Array(oneFrame.prefix(2 + 13))).violation?.closeCode == .invalidPayloadData)
    }

    @Test("text ending inside a code point fails with 1007 at the message's end")
    func unfinishedCodePoint() {
        #expect(Self.assemble(serverFrame(.text, [0x61, 0xE2, 0x82])).violation?.closeCode == .invalidPayloadData)
        // Binary messages are not checked.
        #expect(Self.assemble(serverFrame(.binary, [0xE2, 0x82])).violation == nil)
    }

    @Test("RSV1 without permessage-deflate is refused by the parser; with it, an assembler without an inflater refuses")
    func compressedWithoutAgreement() {
        var assembler = try! WebSocketMessageAssembler(maximumMessageSize: 100, compression: nil)
        var violation: WebSocketProtocolViolation?
        do throws(WebSocketProtocolViolation) {
            _ = try assembler.handle(.header(.init(isFinal: true, reservedBits: 0x40, opcode: .text, payloadLength: 1)))
        } catch {
            violation = error
        }
        #expect(violation?.closeCode == .protocolError)
    }
}
