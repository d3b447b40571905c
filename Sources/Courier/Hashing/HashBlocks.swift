/// What SHA-1 and SHA-256 share (FIPS 180-4 §5.1.1, §5.2.1, §6): the message padded to whole
/// 512-bit blocks, each read as sixteen big-endian 32-bit words, and the digest written out as
/// the big-endian bytes of the final state.
enum HashBlocks {
    /// Calls `body` with each padded block's message schedule: its first sixteen words are the
    /// block's, the remaining `scheduleLength - 16` are left for `body` to expand.
    static func forEachBlock(
        of bytes: some Collection<UInt8>, scheduleLength: Int, _ body: (inout [UInt32]) -> Void
    ) {
        var message = Array(bytes)
        let bitLength = UInt64(message.count) &* 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var schedule = [UInt32](repeating: 0, count: scheduleLength)
        for blockStart in stride(from: 0, to: message.count, by: 64) {
            for index in 0..<16 {
                let offset = blockStart + index * 4
                schedule[index] =
                    UInt32(message[offset]) << 24 | UInt32(message[offset + 1]) << 16
                    | UInt32(message[offset + 2]) << 8 | UInt32(message[offset + 3])
            }
            body(&schedule)
        }
    }

    /// The digest: each word of the final state as four big-endian bytes.
    static func digest(of state: [UInt32]) -> [UInt8] {
        state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - $0 * 8)) } }
    }
}
