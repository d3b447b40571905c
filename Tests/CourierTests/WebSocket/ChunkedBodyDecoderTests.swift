import Foundation
import Testing

@testable import Courier

@Suite("Chunked body decoder")
struct ChunkedBodyDecoderTests {
    private func decode(_ pieces: [[UInt8]], limit: Int = 1 << 20) throws(ChunkedBodyDecoder.Failure) -> [UInt8]? {
        var decoder = ChunkedBodyDecoder(limit: limit)
        for piece in pieces { try decoder.feed(piece[...]) }
        return decoder.isComplete ? decoder.body : nil
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Extensions, upper and lower case hex, leading zeros, whitespace before an extension, a bare
    /// LF, a chunk whose data holds CRLFs, and trailer fields.
    private let encoded = Array(
        ("4;name=value\r\nWiki\r\n0005 ;x\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\na\nABCDEFGHIJ\n"
            + "0;last\r\nExpires: never\r\nX: y\r\n\r\n").utf8)
    private let decoded = Array("Wikipedia in\r\n\r\nchunks.ABCDEFGHIJ".utf8)

    @Test("a body decodes the same whole, split at any byte, or a byte at a time")
    func splits() throws {
        #expect(try decode([encoded]) == decoded)
        for split in 0...encoded.count {
            #expect(try decode([Array(encoded[..<split]), Array(encoded[split...])]) == decoded, "split at \(split)")
        }
        #expect(try decode(encoded.map { [$0] }) == decoded)
    }

    @Test("it is not complete until the trailer section's empty line")
    func incomplete() throws {
        for end in 0..<encoded.count {
            #expect(try decode([Array(encoded[..<end])]) == nil, "at \(end)")
        }
        // Bytes after the end are not the body's.
        #expect(try decode([encoded + bytes("5\r\nextra\r\n")]) == decoded)
    }

    @Test("a million one-byte chunks decode in one pass")
    func manyChunks() throws {
        let body = try decode([
            Array(repeating: bytes("1\r\na\r\n"), count: 1_000_000).flatMap { $0 } + bytes("0\r\n\r\n")
        ])
        #expect(body?.count == 1_000_000)
    }

    @Test(
        "a chunk-size line may hold 4,096 bytes before its line end, not one more",
        arguments: [("\r\n", 4096, true), ("\r\n", 4097, false), ("\n", 4096, true), ("\n", 4097, false)])
    func lineLength(ending: String, length: Int, accepted: Bool) throws {
        let line = "1;" + String(repeating: "x", count: length - 2) + ending
        let result = Result { () throws(ChunkedBodyDecoder.Failure) in try decode([bytes(line + "a\r\n0\r\n\r\n")]) }
        if accepted {
            #expect(try result.get() == bytes("a"))
        } else {
            #expect(throws: ChunkedBodyDecoder.Failure.malformed("a chunk-size line is over 4096 bytes")) {
                try result.get()
            }
        }
    }

    @Test("endless lines fail at their bound: digits, CRs, a trailer line, a trailer section")
    func endlessLines() {
        for endless in [
            String(repeating: "0", count: 10_000), String(repeating: "\r", count: 10_000),
            "0\r\n" + String(repeating: "x", count: 10_000),
            "0\r\n" + String(repeating: "X: y\r\n", count: 5_000),
        ] {
            #expect(throws: ChunkedBodyDecoder.Failure.self) { try decode([bytes(endless)]) }
        }
    }

    @Test("sizes past the limit fail before any data, however many digits they have")
    func tooLarge() {
        for size in ["100001", "FFFFFFFFFFFFFFFFFFFFFFFF", "7FFFFFFFFFFFFFFF"] {
            #expect(throws: ChunkedBodyDecoder.Failure.tooLarge) { try decode([bytes(size + "\r\nx")]) }
        }
        // Chunks that add up past the limit.
        #expect(throws: ChunkedBodyDecoder.Failure.tooLarge) {
            try decode([bytes("8\r\n12345678\r\n8\r\n12345678\r\n")], limit: 10)
        }
    }

    @Test(
        "what is not a chunked body fails",
        arguments: ["zz\r\n", "\r\n", ";ext\r\n", "1 2\r\n", "2\r\nabcd\r\n", "-1\r\n"])
    func malformed(text: String) {
        #expect(throws: ChunkedBodyDecoder.Failure.self) { try decode([bytes(text)]) }
    }
}
