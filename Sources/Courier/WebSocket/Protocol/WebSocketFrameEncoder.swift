/// Writes a client's frames (RFC 6455 §5.2): FIN, RSV1 for a compressed message's first frame, the
/// opcode, the length in its shortest form (7, 16 or 64 bits), and a masked payload: every client
/// frame is masked, with a fresh key from the system's CSPRNG for each frame (§5.3). A message
/// longer than ``maximumFramePayload`` goes out in fragments: the first frame carries the opcode
/// (and RSV1), the rest are continuations, the last has FIN.
package struct WebSocketFrameEncoder: Sendable {
    /// Where masking keys come from.
    package enum MaskKeys: Sendable {
        /// A fresh key per frame from the system's CSPRNG: what a client always uses.
        case random
        /// The same key for every frame: for tests that compare bytes with a specification's.
        case fixed(UInt32)
        /// No masking: a server's frames (for test servers and stubs only).
        case unmasked
    }

    /// Where masking keys come from.
    package var maskKeys: MaskKeys
    /// The most payload bytes of one data frame: longer messages are fragmented.
    package var maximumFramePayload: Int

    package init(maskKeys: MaskKeys = .random, maximumFramePayload: Int = .max) {
        self.maskKeys = maskKeys
        self.maximumFramePayload = max(1, maximumFramePayload)
    }

    /// One frame, header and payload, appended to `output`.
    package func appendFrame(
        _ opcode: WebSocketOpcode, isFinal: Bool = true, reservedBits: UInt8 = 0,
        payload: UnsafeRawBufferPointer, to output: inout [UInt8]
    ) {
        let key: UInt32?
        switch maskKeys {
        case .random: key = WebSocketMasking.randomKey()
        case .fixed(let fixed): key = fixed
        case .unmasked: key = nil
        }
        output.append((isFinal ? 0x80 : 0) | (reservedBits & 0x70) | opcode.rawValue)
        let maskBit: UInt8 = key == nil ? 0 : 0x80
        let count = payload.count
        if count < 126 {
            output.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(truncatingIfNeeded: count >> 8))
            output.append(UInt8(truncatingIfNeeded: count))
        } else {
            output.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift)))
            }
        }
        guard let key else {
            output.append(contentsOf: payload)
            return
        }
        for shift in [24, 16, 8, 0] { output.append(UInt8(truncatingIfNeeded: key >> UInt32(shift))) }
        let start = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { buffer in
            WebSocketMasking.apply(key, to: UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// One control frame (close, ping, pong): at most 125 payload bytes, never fragmented.
    package func controlFrame(_ opcode: WebSocketOpcode, payload: [UInt8]) -> [UInt8] {
        precondition(opcode.isControl && payload.count <= WebSocketFrameHeader.maximumControlPayload)
        var output: [UInt8] = []
        output.reserveCapacity(payload.count + 6)
        payload.withUnsafeBytes { appendFrame(opcode, payload: $0, to: &output) }
        return output
    }

    /// A data message's frames, one after another: fragments of at most ``maximumFramePayload``
    /// bytes. `isCompressed` sets RSV1 on the first frame (the payload is already deflated).
    package func messageFrames(
        _ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, isCompressed: Bool = false
    ) -> [UInt8] {
        precondition(opcode == .text || opcode == .binary)
        let frameCount = payload.isEmpty ? 1 : (payload.count - 1) / maximumFramePayload + 1
        var output: [UInt8] = []
        output.reserveCapacity(payload.count + frameCount * 14)
        var start = 0
        repeat {
            let end = start + min(maximumFramePayload, payload.count - start)
            appendFrame(
                start == 0 ? opcode : .continuation, isFinal: end == payload.count,
                reservedBits: start == 0 && isCompressed ? WebSocketFrameHeader.compressedBit : 0,
                payload: UnsafeRawBufferPointer(rebasing: payload[start..<end]), to: &output)
            start = end
        } while start < payload.count
        return output
    }
}
