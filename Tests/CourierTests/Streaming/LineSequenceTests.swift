import Courier
import Foundation
import Testing

@Suite("Line and JSON-line views of a byte stream")
struct LineSequenceTests {
    private func stream(_ pieces: [[UInt8]]) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for piece in pieces { continuation.yield(Data(piece)) }
            continuation.finish()
        }
    }

    private func lines(_ pieces: [[UInt8]], maximumLength: Int = 1 << 20) async throws -> [String] {
        var lines: [String] = []
        for try await line in stream(pieces).lines(maximumLength: maximumLength) { lines.append(line) }
        return lines
    }

    @Test("LF and CRLF end lines; a lone CR is part of the line; a last line without an end is kept")
    func lineEnds() async throws {
        #expect(try await lines([Array("a\nb\r\nc\rd\ne".utf8)]) == ["a", "b", "c\rd", "e"])
        #expect(try await lines([Array("a\n\n".utf8)]) == ["a", ""])
    }

    @Test("a CRLF or a UTF-8 character split between pieces, and every byte alone")
    func splits() async throws {
        let text = Array("première ligne\r\nsecond 🚀 line\nthird".utf8)
        #expect(try await lines(text.map { [$0] }) == ["première ligne", "second 🚀 line", "third"])
        let crlf = Array("one\r".utf8)
        #expect(try await lines([crlf, Array("\ntwo".utf8)]) == ["one", "two"])
    }

    @Test("a line over the limit fails with responseTooLarge")
    func limit() async throws {
        await #expect(throws: APIError.self) {
            _ = try await lines(Array(repeating: Array("0123456789".utf8), count: 10), maximumLength: 50)
        }
        #expect(try await lines([Array(String(repeating: "x", count: 50).utf8) + [10]], maximumLength: 50).count == 1)
    }
}
