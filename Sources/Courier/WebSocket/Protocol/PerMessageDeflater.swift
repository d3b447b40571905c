import CCourierZlib

/// Deflates sent permessage-deflate messages (RFC 7692 §7.2.1): raw deflate with a sync flush, the
/// final 00 00 FF FF removed. The window is kept from message to message (context takeover) unless
/// the agreement has `client_no_context_takeover`, when it is reset after each message. The window
/// is 2^`client_max_window_bits` bytes.
///
/// Not `Sendable`: one connection owns it.
final class PerMessageDeflater {
    private let deflater: OpaquePointer
    private let resetsEachMessage: Bool

    /// A deflater for `parameters` (whose ``PerMessageDeflate/Parameters/compressesOutgoing`` must
    /// be true); `level` is zlib's, 0–9.
    ///
    /// - Throws: ``WebSocketHandshakeFailure`` when zlib cannot be loaded or refuses the settings.
    init(_ parameters: PerMessageDeflate.Parameters, level: Int32 = 6) throws(WebSocketHandshakeFailure) {
        var error = [CChar](repeating: 0, count: 256)
        let bits = Int32(min(15, max(9, parameters.clientMaxWindowBits)))
        // memLevel 8 is zlib's default; a smaller window gets a smaller hash table.
        guard ccourier_zlib_load(&error, error.count) == 0,
            let made = ccourier_deflater_make(level, -bits, bits < 15 ? max(1, bits - 7) : 8)
        else {
            throw WebSocketHandshakeFailure("permessage-deflate needs zlib, which could not be loaded")
        }
        deflater = made
        resetsEachMessage = parameters.clientNoContextTakeover
    }

    deinit {
        ccourier_deflater_free(deflater)
    }

    /// The compressed payload of one message.
    func deflate(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(64, message.count / 2 + 64))
        var produced = 0
        var offset = 0
        var error = [CChar](repeating: 0, count: 128)
        while true {
            if produced == output.count { output.append(contentsOf: [UInt8](repeating: 0, count: output.count)) }
            var consumed = 0
            var made = 0
            let from = message.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + offset }
            let room = output.count - produced
            let code = output.withUnsafeMutableBufferPointer { target in
                ccourier_deflate(
                    deflater, from, message.count - offset, &consumed, target.baseAddress! + produced, room, &made, 1,
                    &error, error.count)
            }
            // zlib fails only on a broken stream state, which Courier never makes.
            precondition(code == Int32(CCOURIER_DEFLATE_OK), "zlib's deflate failed")
            offset += consumed
            produced += made
            if offset == message.count && made < room { break }
        }
        output.removeSubrange(produced...)
        // A sync flush ends on an empty stored block, 00 00 FF FF: the receiver puts it back.
        if output.count >= 4 && output.suffix(4) == [0x00, 0x00, 0xFF, 0xFF] { output.removeLast(4) }
        if resetsEachMessage { _ = ccourier_deflater_reset(deflater) }
        return output
    }
}
