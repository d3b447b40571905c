import Foundation
import Testing

@testable import Courier

/// How bytes are cut into the pieces a transport reads: whole, a byte at a time, in uneven pieces.
enum WebSocketDelivery: String, CaseIterable, CustomTestStringConvertible {
    case whole, byteAtATime, threes, sevens
    var testDescription: String { rawValue }

    func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
        let size: Int
        switch self {
        case .whole: return [bytes]
        case .byteAtATime: size = 1
        case .threes: size = 3
        case .sevens: size = 7
        }
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }
}

/// A frame as the parser reports it: its header and its whole payload.
struct ParsedFrame: Equatable {
    var header: WebSocketFrameHeader
    var payload: [UInt8]
}

/// Every frame in `bytes`, delivered as `delivery` cuts them, or the violation that stopped them.
func parseFrames(
    _ bytes: [UInt8], _ delivery: WebSocketDelivery = .whole, maximumFramePayload: Int = 1 << 20,
    allowedReservedBits: UInt8 = 0, readsClientFrames: Bool = false
) -> (frames: [ParsedFrame], violation: WebSocketProtocolViolation?) {
    var parser = WebSocketFrameParser(
        maximumFramePayload: maximumFramePayload, allowedReservedBits: allowedReservedBits,
        readsClientFrames: readsClientFrames)
    var frames: [ParsedFrame] = []
    var current: ParsedFrame?
    do throws(WebSocketProtocolViolation) {
        for piece in delivery.pieces(bytes) {
            try parser.parse(piece) { event in
                switch event {
                case .header(let header): current = ParsedFrame(header: header, payload: [])
                case .payload(let bytes): current?.payload.append(contentsOf: bytes)
                case .end: frames.append(current!)
                }
            }
        }
    } catch {
        return (frames, error)
    }
    return (frames, nil)
}

/// A server's frame (unmasked), byte for byte.
func serverFrame(
    _ opcode: WebSocketOpcode, _ payload: [UInt8] = [], isFinal: Bool = true, reservedBits: UInt8 = 0
) -> [UInt8] {
    var output: [UInt8] = []
    payload.withUnsafeBytes {
        WebSocketFrameEncoder(maskKeys: .unmasked).appendFrame(
            opcode, isFinal: isFinal, reservedBits: reservedBits, payload: $0, to: &output)
    }
    return output
}

/// A server's frame with a header written by hand: any length form, any bits.
func rawFrame(_ first: UInt8, _ lengthBytes: [UInt8], payload: [UInt8] = []) -> [UInt8] {
    [first] + lengthBytes + payload
}

/// The frames a client wrote, unmasked (checking each is masked).
func clientFrames(_ bytes: [UInt8]) -> [ParsedFrame] {
    let (frames, violation) = parseFrames(bytes, allowedReservedBits: 0x40, readsClientFrames: true)
    #expect(violation == nil)
    return frames
}

extension Array where Element == UInt8 {
    /// Bytes from hexadecimal digits (whitespace ignored).
    init(hex: String) {
        let digits: [UInt8] = hex.utf8.filter { $0 != 0x20 && $0 != 0x0A }
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < digits.count {
            let pair = String(decoding: digits[index..<(index + 2)], as: UTF8.self)
            bytes.append(UInt8(pair, radix: 16)!)
            index += 2
        }
        self = bytes
    }
}

/// Options whose close timeout outlasts a starved pool: the tests' close handshakes over the stub
/// take milliseconds, but the parallel pass can hold a scripted peer's reply past the 5 s default.
let patient = WebSocketOptions(closeTimeout: .seconds(60))
