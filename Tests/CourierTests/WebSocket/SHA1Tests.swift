import Testing

@testable import Courier

/// SHA-1 on the FIPS 180-4 example vectors (NIST's "SHA1.pdf" and the one-million-"a" message).
@Suite("SHA-1")
struct SHA1Tests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test(
        "FIPS 180-4 vectors",
        arguments: [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "a49b2446a02c645bf419f995b67091253a04a259"
            ),
        ])
    func vectors(message: String, digest: String) {
        #expect(hex(SHA1.hash(Array(message.utf8))) == digest)
    }

    @Test("one million a's (several blocks, the length in the padding's last block)")
    func millionAs() {
        #expect(
            hex(SHA1.hash([UInt8](repeating: 0x61, count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test("lengths around the padding boundary (55, 56, 63, 64 bytes) hash as Python's hashlib does")
    func paddingBoundaries() {
        // Digests from Python's hashlib.sha1(b"a" * n).
        let expected = [
            55: "c1c8bbdc22796e28c0e15163d20899b65621d65a", 56: "c2db330f6083854c99d4b5bfb6e8f29f201be699",
            63: "03f09f5b158a7a8cdad920bddc29b81c18a551f5", 64: "0098ba824b5c16427bd7a1122a5a442a25ec644d",
        ]
        for (count, digest) in expected {
            #expect(hex(SHA1.hash([UInt8](repeating: 0x61, count: count))) == digest, "\(count) bytes")
        }
    }
}
