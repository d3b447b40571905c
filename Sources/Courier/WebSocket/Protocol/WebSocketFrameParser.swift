/// Reads WebSocket frames (RFC 6455 §5) from bytes that arrive in any pieces, a byte at a time
/// included, and hands them on as they come: a frame's header as soon as it is whole, then its
/// payload piece by piece as it arrives (never buffered here: only the header's 2–14 bytes are),
/// then its end. The frame rules, each failing the connection:
/// - a reserved opcode (3–7, 11–15): 1002;
/// - RSV1–RSV3 set without an extension that defines them: 1002; with permessage-deflate, RSV1 only
///   on the first frame of a data message, never on a continuation or a control frame (RFC 7692
///   §6): 1002;
/// - a control frame (close, ping, pong) with more than 125 payload bytes or without FIN: 1002;
/// - a length not in its shortest form (16 bits for less than 126, 64 bits for less than 65,536) or
///   a 64-bit length with its most significant bit set: 1002;
/// - a masked frame from a server (a client's frame unmasked, when reading a client): 1002;
/// - a data frame longer than ``maximumFramePayload``: 1009, decided from the header, before any
///   payload byte is read.
/// Message rules (a continuation with no message open, fragments of two messages interleaved) are
/// the ``WebSocketMessageAssembler``'s.
///
/// ```swift
/// var parser = WebSocketFrameParser(maximumFramePayload: 1 << 20)
/// try parser.parse(bytes) { event in … }   // .header(h), .payload(piece)…, .end
/// ```
package struct WebSocketFrameParser: Sendable {
    /// What the parser found.
    package enum Event {
        /// A frame starts: its header, checked.
        case header(WebSocketFrameHeader)
        /// The next bytes of the payload, unmasked. Valid only during the call.
        case payload(UnsafeRawBufferPointer)
        /// The frame ended (after its header for an empty payload).
        case end
    }

    /// The largest payload of one data frame: a longer one fails with 1009 before it is read.
    package var maximumFramePayload: Int
    /// The reserved bits an extension negotiated for (RSV1, 0x40, with permessage-deflate).
    package var allowedReservedBits: UInt8
    /// Whether the frames come from a client (masked, and unmasked here); `false` for a server's.
    package let readsClientFrames: Bool

    private var headerBytes: [UInt8] = []
    private var header: WebSocketFrameHeader?
    private var remaining = 0
    private var payloadOffset = 0
    private var scratch: [UInt8] = []
    private var failure: WebSocketProtocolViolation?

    package init(maximumFramePayload: Int, allowedReservedBits: UInt8 = 0, readsClientFrames: Bool = false) {
        self.maximumFramePayload = max(0, maximumFramePayload)
        self.allowedReservedBits = allowedReservedBits
        self.readsClientFrames = readsClientFrames
        headerBytes.reserveCapacity(14)
    }

    /// Whether the parser stands between frames (no header or payload begun).
    package var isAtFrameBoundary: Bool { header == nil && headerBytes.isEmpty }

    /// Reads the next bytes, calling `handle` for each event they complete.
    ///
    /// - Throws: ``WebSocketProtocolViolation`` for a frame that breaks a rule (and again on every
    ///   later call), or what `handle` throws.
    package mutating func parse(
        _ bytes: UnsafeRawBufferPointer, _ handle: (Event) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        if let failure { throw failure }
        do throws(WebSocketProtocolViolation) {
            var index = 0
            while index < bytes.count {
                if header == nil {
                    index += try readHeader(UnsafeRawBufferPointer(rebasing: bytes[index...]), handle)
                } else {
                    let take = min(remaining, bytes.count - index)
                    try deliver(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]), handle)
                    index += take
                }
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// Reads the next bytes of an array.
    package mutating func parse(
        _ bytes: [UInt8], _ handle: (Event) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        try WebSocketProtocolViolation.rethrowing { try bytes.withUnsafeBytes { buffer in try parse(buffer, handle) } }
    }

    /// Takes header bytes; returns how many it took.
    private mutating func readHeader(
        _ bytes: UnsafeRawBufferPointer, _ handle: (Event) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) -> Int {
        var taken = 0
        while taken < bytes.count {
            headerBytes.append(bytes[taken])
            taken += 1
            if headerBytes.count == 2 { try checkFirstBytes() }
            if headerBytes.count >= 2, headerBytes.count == Self.headerLength(headerBytes[1]) {
                try startFrame(handle)
                return taken
            }
        }
        return taken
    }

    private static func headerLength(_ second: UInt8) -> Int {
        let lengthBytes = [0, 2, 8][second & 0x7F == 126 ? 1 : second & 0x7F == 127 ? 2 : 0]
        return 2 + lengthBytes + (second & 0x80 != 0 ? 4 : 0)
    }

    /// The rules the first two bytes decide: opcode, reserved bits, control frames, masking.
    private func checkFirstBytes() throws(WebSocketProtocolViolation) {
        let first = headerBytes[0]
        let second = headerBytes[1]
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("reserved opcode \(first & 0x0F)")
        }
        let reserved = first & 0x70
        if reserved & ~allowedReservedBits != 0 {
            throw .protocolError("reserved bits \(String(reserved >> 4, radix: 2)) set without an extension")
        }
        if reserved & WebSocketFrameHeader.compressedBit != 0 && (opcode.isControl || opcode == .continuation) {
            throw .protocolError("RSV1 set on a \(opcode.isControl ? "control frame" : "continuation frame")")
        }
        if opcode.isControl {
            if first & 0x80 == 0 { throw .protocolError("fragmented control frame") }
            if second & 0x7F > 125 { throw .protocolError("control frame longer than 125 bytes") }
        }
        let isMasked = second & 0x80 != 0
        if isMasked != readsClientFrames {
            throw .protocolError(readsClientFrames ? "unmasked client frame" : "masked server frame")
        }
    }

    /// The whole header is in: the length's rules, then the frame starts.
    private mutating func startFrame(
        _ handle: (Event) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        let first = headerBytes[0]
        let second = headerBytes[1]
        var length = UInt64(second & 0x7F)
        var offset = 2
        if length == 126 {
            length = UInt64(headerBytes[2]) << 8 | UInt64(headerBytes[3])
            offset = 4
            if length < 126 { throw .protocolError("16-bit length \(length) not in its shortest form") }
        } else if length == 127 {
            length = headerBytes[2..<10].reduce(0) { $0 << 8 | UInt64($1) }
            offset = 10
            if length & (1 << 63) != 0 { throw .protocolError("64-bit length with its most significant bit set") }
            if length <= 0xFFFF { throw .protocolError("64-bit length \(length) not in its shortest form") }
        }
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)!
        if !opcode.isControl && length > UInt64(maximumFramePayload) {
            throw .tooBig("frame of \(length) bytes over the limit of \(maximumFramePayload)")
        }
        var maskKey: UInt32?
        if second & 0x80 != 0 {
            maskKey = headerBytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let frame = WebSocketFrameHeader(
            isFinal: first & 0x80 != 0, reservedBits: first & 0x70, opcode: opcode, maskKey: maskKey,
            payloadLength: Int(length))
        headerBytes.removeAll(keepingCapacity: true)
        header = frame
        remaining = frame.payloadLength
        payloadOffset = 0
        try handle(.header(frame))
        if remaining == 0 { try endFrame(handle) }
    }

    private mutating func deliver(
        _ piece: UnsafeRawBufferPointer, _ handle: (Event) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        if let key = header?.maskKey {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: piece)
            let offset = payloadOffset
            scratch.withUnsafeMutableBytes { WebSocketMasking.apply(key, to: $0, offset: offset) }
            let unmasked = scratch
            try WebSocketProtocolViolation.rethrowing {
                try unmasked.withUnsafeBytes { buffer in try handle(.payload(buffer)) }
            }
        } else {
            try handle(.payload(piece))
        }
        payloadOffset += piece.count
        remaining -= piece.count
        if remaining == 0 { try endFrame(handle) }
    }

    private mutating func endFrame(
        _ handle: (Event) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        header = nil
        try handle(.end)
    }
}
