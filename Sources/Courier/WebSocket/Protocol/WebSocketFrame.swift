/// A frame's opcode (RFC 6455 §5.2, §11.8): 0 continuation, 1 text, 2 binary, 8 close, 9 ping,
/// 10 pong. 3–7 and 11–15 are reserved: a frame with one of them fails the connection with 1002.
package enum WebSocketOpcode: UInt8, Sendable, CaseIterable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Whether frames of this opcode are control frames (close, ping, pong: opcodes 8–15).
    package var isControl: Bool { rawValue & 0x8 != 0 }
}

/// The header of one frame, as on the wire (RFC 6455 §5.2).
package struct WebSocketFrameHeader: Hashable, Sendable {
    /// FIN: the last frame of its message.
    package var isFinal: Bool
    /// RSV1–RSV3 in their wire positions (0x40, 0x20, 0x10). RSV1 is permessage-deflate's "this
    /// message is compressed" bit (RFC 7692 §6).
    package var reservedBits: UInt8
    package var opcode: WebSocketOpcode
    /// The masking key of a masked frame (client to server), `nil` for an unmasked one.
    package var maskKey: UInt32?
    package var payloadLength: Int

    package init(
        isFinal: Bool, reservedBits: UInt8 = 0, opcode: WebSocketOpcode, maskKey: UInt32? = nil, payloadLength: Int
    ) {
        self.isFinal = isFinal
        self.reservedBits = reservedBits
        self.opcode = opcode
        self.maskKey = maskKey
        self.payloadLength = payloadLength
    }

    /// RSV1: permessage-deflate's compressed bit.
    package static let compressedBit: UInt8 = 0x40

    /// Whether RSV1 is set.
    package var isCompressed: Bool { reservedBits & Self.compressedBit != 0 }

    /// The largest payload of a control frame (RFC 6455 §5.5).
    package static let maximumControlPayload = 125
}
