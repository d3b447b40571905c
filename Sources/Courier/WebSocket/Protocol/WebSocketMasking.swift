/// Masking (RFC 6455 §5.3): every byte of a client frame's payload is XORed with the byte of the
/// 32-bit masking key at its position modulo 4. The key is chosen per frame from a cryptographically
/// secure generator, so a script on the same page cannot predict the bytes on the wire (the attack
/// on intermediaries that §10.3 describes). Unmasking is the same operation.
package enum WebSocketMasking {
    /// A fresh masking key from the system's CSPRNG (`getrandom` on Linux, `arc4random` on Apple
    /// platforms: what Swift's `SystemRandomNumberGenerator` uses).
    package static func randomKey() -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }

    /// XORs `bytes` in place with `key` (in network byte order), as if they started at payload
    /// offset `offset` (a payload unmasked in pieces continues where the last piece ended).
    package static func apply(_ key: UInt32, to bytes: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        guard !bytes.isEmpty else { return }
        let keyBytes: [UInt8] = [
            UInt8(truncatingIfNeeded: key >> 24), UInt8(truncatingIfNeeded: key >> 16),
            UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key),
        ]
        var index = 0
        let count = bytes.count
        // Byte by byte up to a multiple of 4 in the payload, then eight bytes at a time.
        while index < count, (offset + index) % 4 != 0 {
            bytes[index] ^= keyBytes[(offset + index) % 4]
            index += 1
        }
        if count - index >= 8 {
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { word in
                for position in 0..<8 { word[position] = keyBytes[position % 4] }
            }
            while index + 8 <= count {
                let value = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ word
                bytes.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
                index += 8
            }
        }
        while index < count {
            bytes[index] ^= keyBytes[(offset + index) % 4]
            index += 1
        }
    }
}
