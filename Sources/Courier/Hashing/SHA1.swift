/// SHA-1 (FIPS 180-4 §6.1), for the one place the WebSocket protocol needs it: the handshake's
/// `Sec-WebSocket-Accept` (RFC 6455 §4.2.2). SHA-1 is broken for collision resistance; the
/// handshake uses it only to prove the server read the key, never for security, and Courier uses
/// it nowhere else. Foundation on Linux has no hash functions, so Courier carries this one, as it
/// carries ``SHA256``.
package enum SHA1 {
    /// The digest of `bytes`: 20 bytes.
    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        HashBlocks.forEachBlock(of: bytes, scheduleLength: 80) { schedule in
            for index in 16..<80 {
                schedule[index] = rotate(
                    schedule[index - 3] ^ schedule[index - 8] ^ schedule[index - 14] ^ schedule[index - 16], 1)
            }
            compress(&state, schedule: schedule)
        }
        return HashBlocks.digest(of: state)
    }

    private static func compress(_ state: inout [UInt32], schedule: [UInt32]) {
        var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
        for index in 0..<80 {
            let (function, constant): (UInt32, UInt32)
            switch index {
            case 0..<20: (function, constant) = ((b & c) | (~b & d), 0x5A82_7999)
            case 20..<40: (function, constant) = (b ^ c ^ d, 0x6ED9_EBA1)
            case 40..<60: (function, constant) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
            default: (function, constant) = (b ^ c ^ d, 0xCA62_C1D6)
            }
            let temp = rotate(a, 5) &+ function &+ e &+ constant &+ schedule[index]
            (e, d, c, b, a) = (d, c, rotate(b, 30), a, temp)
        }
        for (index, value) in [a, b, c, d, e].enumerated() {
            state[index] = state[index] &+ value
        }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
