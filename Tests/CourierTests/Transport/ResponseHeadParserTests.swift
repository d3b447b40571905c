import Foundation
import Testing

@testable import Courier

@Suite("Response head parsing (CurlTransport)")
struct ResponseHeadParserTests {
    private func parse(_ lines: [String]) throws -> ResponseHeadParser {
        var parser = ResponseHeadParser()
        for line in lines {
            var bytes = Array(line.utf8)
            try bytes.withUnsafeMutableBytes { try parser.consume(UnsafeRawBufferPointer($0)) }
        }
        return parser
    }

    @Test("status, fields in order with repeats, values trimmed")
    func fields() throws {
        let parser = try parse([
            "HTTP/1.1 200 OK\r\n", "Set-Cookie: a=1\r\n", "Content-Type:  text/plain \r\n", "Set-Cookie: b=2\r\n",
            "\r\n",
        ])

        #expect(parser.isComplete)
        #expect(parser.status == 200)
        #expect(parser.headers.map(\.name.rawName) == ["Set-Cookie", "Content-Type", "Set-Cookie"])
        #expect(parser.headers.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(parser.headers[.contentType] == "text/plain")
    }

    @Test("an interim 100 Continue head is skipped for the final one")
    func interim() throws {
        let parser = try parse([
            "HTTP/1.1 100 Continue\r\n", "X-Early: 1\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "Location: /x\r\n",
            "\r\n",
        ])

        #expect(parser.status == 201)
        #expect(parser.headers.map(\.name.rawName) == ["Location"])
    }

    @Test("a proxy's complete CONNECT head followed by the origin's: the last head wins")
    func lastHeadWins() throws {
        let parser = try parse([
            "HTTP/1.1 200 Connection established\r\n", "Proxy-Agent: squid\r\n", "Content-Length: 0\r\n", "\r\n",
            "HTTP/1.1 404 Not Found\r\n", "X-Origin: api\r\n", "\r\n", "X-Trailer: late\r\n",
        ])

        #expect(parser.isComplete)
        #expect(parser.status == 404)
        #expect(parser.headers.map(\.name.rawName) == ["X-Origin"])
    }

    @Test("an obsolete folded line continues the previous value; trailers are ignored")
    func folding() throws {
        let parser = try parse([
            "HTTP/2 200\r\n", "X-Long: first\r\n", "\t second\r\n", "\r\n", "X-Trailer: late\r\n",
        ])

        #expect(parser.headers["X-Long"] == "first second")
        #expect(parser.headers["X-Trailer"] == nil)
    }

    @Test(
        "malformed heads are refused",
        arguments: [
            ["X-First: 1\r\n"], ["HTTP/1.1 2OO OK\r\n"], ["HTTP/1.1\r\n"],
            ["HTTP/1.1 200 OK\r\n", "no colon here\r\n"],
            ["HTTP/1.1 200 OK\r\n", " folded first\r\n"], ["HTTP/1.1 200 OK\r\n", ": empty name\r\n"], ["\r\n"],
        ])
    func malformed(lines: [String]) {
        #expect(throws: ResponseHeadParser.Malformed.self) { try parse(lines) }
    }

    @Test("20,000 fields are read in linear time")
    func manyFields() throws {
        let lines = ["HTTP/1.1 200 OK\r\n"] + (0..<20_000).map { "X-H\($0): v\r\n" } + ["\r\n"]
        let parser = try parse(lines)

        #expect(parser.headers.count == 20_000)
    }

    @Test("a status code below 100 is refused (found by fuzzing: it could not be written back as a status line)")
    func statusBelow100() {
        for line in ["HTTP/1.1 000 Zero", "HTTP/1.1 099 Low", "HTTP/2 042"] {
            #expect(throws: ResponseHeadParser.Malformed.self) { try parse([line, ""]) }
        }
        #expect(throws: Never.self) { try parse(["HTTP/1.1 999 Custom", ""]) }
    }

    @Test(
        "a CR inside a header value becomes a space (found by fuzzing: it was kept, so the value could not be written back)"
    )
    func carriageReturnInValue() throws {
        let parser = try parse(["HTTP/1.1 200 OK", "X-Odd: a\rb\r ", ""])
        #expect(parser.headers["X-Odd"] == "a b")
    }

    @Test("a folded line continuing an empty value adds no leading space (found by fuzzing)")
    func foldingOntoEmptyValue() throws {
        let parser = try parse(["HTTP/1.1 200 OK", "X-Empty:", "  continued", "X-Two: a", "\tb", ""])
        #expect(parser.headers["X-Empty"] == "continued")
        #expect(parser.headers["X-Two"] == "a b")
    }

    @Test("a CR, LF or NUL at either end of a value is trimmed like a space; inside, it is a space")
    func forbiddenBytesAtTheEnds() throws {
        let parser = try parse(["HTTP/1.1 200 OK", "X-Ends: \r\0 a\0\tb \r", "X-Tabs:\t\tplain\t", ""])
        #expect(parser.headers["X-Ends"] == "a \tb")
        #expect(parser.headers["X-Tabs"] == "plain")
    }

    @Test("names read off the wire keep their spelling and compare without case, in any script")
    func namesFromTheWire() throws {
        let parser = try parse(["HTTP/1.1 200 OK", "CONTENT-type: a", "x-lower: b", "X-Caf\u{C9}: c", ""])
        #expect(parser.headers.map(\.name.rawName) == ["CONTENT-type", "x-lower", "X-Caf\u{C9}"])
        #expect(parser.headers.map(\.name.canonicalName) == ["content-type", "x-lower", "x-caf\u{E9}"])
        #expect(parser.headers[.contentType] == "a")
    }
}
