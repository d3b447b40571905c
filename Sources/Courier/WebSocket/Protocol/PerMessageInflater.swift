import CCourierZlib

/// Inflates received permessage-deflate messages (RFC 7692 §7.2.2) in bounded steps: the compressed
/// payload is raw deflate; at the end of the message the four bytes 00 00 FF FF that the sender
/// removed are put back, and the window is kept for the next message (context takeover) unless
/// the server agreed to `server_no_context_takeover`, when it starts empty each time.
///
/// Memory stays bounded whatever the input: output is made at most ``step`` bytes at a time, and a
/// message that inflates past its limit fails with 1009 as soon as the limit is passed (a deflate
/// bomb never gets further). Data that does not inflate fails with 1007. A message whose deflate
/// stream ends (a block with BFINAL set, RFC 7692 §7.2.3.4) ignores what follows in it, and the next
/// message starts with an empty window.
///
/// Not `Sendable`: one connection owns it.
final class PerMessageInflater {
    private let inflater: OpaquePointer
    private let resetsEachMessage: Bool
    /// The most bytes inflated per zlib call.
    let step: Int
    private var hasStreamEnded = false
    private var buffer: [UInt8]

    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// An inflater for `parameters`.
    ///
    /// - Throws: ``WebSocketHandshakeFailure`` when zlib cannot be loaded (the connection cannot
    ///   use what it agreed to).
    init(_ parameters: PerMessageDeflate.Parameters, step: Int = 16 << 10) throws(WebSocketHandshakeFailure) {
        var error = [CChar](repeating: 0, count: 256)
        guard ccourier_zlib_load(&error, error.count) == 0,
            // A window of 2^9 or more inflates any smaller one; zlib's raw inflate wants 9–15.
            let made = ccourier_inflater_make(-Int32(max(9, min(15, parameters.serverMaxWindowBits))))
        else {
            throw WebSocketHandshakeFailure("permessage-deflate needs zlib, which could not be loaded")
        }
        inflater = made
        resetsEachMessage = parameters.serverNoContextTakeover
        self.step = max(1, step)
        buffer = [UInt8](repeating: 0, count: self.step)
    }

    deinit {
        ccourier_inflater_free(inflater)
    }

    /// Inflates the next compressed bytes of a message, handing each inflated piece (at most
    /// ``step`` bytes) to `output`; `produced` counts the message's inflated bytes so far.
    ///
    /// - Throws: 1009 when `produced` would pass `limit`; 1007 for data that does not inflate.
    func inflate(
        _ input: UnsafeRawBufferPointer, produced: inout Int, limit: Int,
        _ output: (UnsafeRawBufferPointer) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        guard !hasStreamEnded else { return }
        var offset = 0
        // Until all input is taken and a call leaves room unused (zlib holds nothing more).
        while true {
            var consumed = 0
            var made = 0
            var message = [CChar](repeating: 0, count: 128)
            let from = input.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + offset }
            let code = buffer.withUnsafeMutableBufferPointer { target in
                ccourier_inflate(
                    inflater, from, input.count - offset, &consumed, target.baseAddress, step, &made, &message,
                    message.count)
            }
            offset += consumed
            // In stream order, whatever the pieces the input came in: the output up to the limit
            // (which the caller may refuse, as text that is not UTF-8), then the limit, then an
            // error zlib met after that output in the same call.
            let allowed = min(made, limit - produced)
            if allowed > 0 {
                produced += allowed
                try WebSocketProtocolViolation.rethrowing {
                    try buffer.withUnsafeBytes { bytes in
                        try output(UnsafeRawBufferPointer(rebasing: bytes[..<allowed]))
                    }
                }
            }
            if made > allowed { throw .tooBig("message inflates past the limit of \(limit) bytes") }
            if code == Int32(CCOURIER_INFLATE_ERROR) {
                let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw .invalidPayload("compressed data does not inflate: \(reason)")
            }
            if code == Int32(CCOURIER_INFLATE_END) {
                hasStreamEnded = true
                return
            }
            if offset == input.count && made < step { return }
            if consumed == 0 && made == 0 { return }
        }
    }

    /// Ends a message: inflates the 00 00 FF FF the sender removed, then resets the window when the
    /// agreement says so (or the stream ended).
    func finishMessage(
        produced: inout Int, limit: Int, _ output: (UnsafeRawBufferPointer) throws(WebSocketProtocolViolation) -> Void
    ) throws(WebSocketProtocolViolation) {
        var count = produced
        try WebSocketProtocolViolation.rethrowing {
            try Self.tail.withUnsafeBytes { tail in try inflate(tail, produced: &count, limit: limit, output) }
        }
        produced = count
        if resetsEachMessage || hasStreamEnded {
            guard ccourier_inflater_reset(inflater) == 0 else { throw .invalidPayload("zlib could not reset") }
            hasStreamEnded = false
        }
    }
}
