import Foundation
import Testing

@testable import Courier

/// The content decoder behind streams on CurlTransport: gzip and both kinds of deflate, however the
/// compressed bytes are cut, never more output per call than asked for, and typed errors for bad
/// or cut input and codings it cannot decode.
@Suite("Content decoder")
struct ContentDecoderTests {
    /// "The quick brown fox jumps over the lazy dog. " 50 times, compressed by Python's zlib.
    static let text = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 50)
    static let gzip = Data(
        base64Encoded:
            "H4sIAAAAAAACAwvJSFUoLM1MzlZIKsovz1NIy69QyCrNLShWyC9LLVIoAUrnJFZVKqTkp+sphIwqHlU8qnhU8ajiUcWjikcVDybFAPs64F/KCAAA"
    )!
    static let zlib = Data(
        base64Encoded:
            "eJwLyUhVKCzNTM5WSCrKL89TSMuvUMgqzS0oVsgvSy1SKAFK5yRWVSqk5KfrKYSMKh5VPKp4VPGo4lHFo4pHFQ8mxQAljCfM")!
    static let rawDeflate = Data(
        base64Encoded: "C8lIVSgszUzOVkgqyi/PU0jLr1DIKs0tKFbIL0stUigBSuckVlUqpOSn6ymEjCoeVTyqeFTxqOJRxaOKRxUPJsUA")!
    /// Two gzip members: "first member, " and "second member".
    static let twoMembers = Data(
        base64Encoded: "H4sIAAAAAAACA0vLLCouUchNzU1KLdJRAADe/wpiDgAAAB+LCAAAAAAAAgMrTk3Oz0tRyE3NTUotAgAkdPqfDQAAAA==")!

    /// Feeds `data` in pieces of `piece` bytes, decoding at most `maximum` bytes a call until a call
    /// gives nothing, then ends the body: as a stream's reader does.
    private func decode(_ data: Data, _ coding: ContentDecoder.Coding, piece: Int, maximum: Int) throws -> Data {
        let decoder = try ContentDecoder(coding)
        var output = Data()
        for start in stride(from: 0, to: data.count, by: piece) {
            decoder.feed(data.subdata(in: start..<min(start + piece, data.count)))
            while case let decoded = try decoder.decode(maximum: maximum), !decoded.isEmpty {
                #expect(decoded.count <= maximum)
                output.append(decoded)
            }
        }
        try decoder.finish()
        return output
    }

    @Test(
        "gzip, zlib deflate and raw deflate decode whole, whatever the pieces and the room per call",
        arguments: [1, 7, 1000], [1, 64, 1 << 20])
    func decodes(piece: Int, maximum: Int) throws {
        #expect(
            String(decoding: try decode(Self.gzip, .gzip, piece: piece, maximum: maximum), as: UTF8.self) == Self.text)
        #expect(
            String(decoding: try decode(Self.zlib, .deflate, piece: piece, maximum: maximum), as: UTF8.self)
                == Self.text)
        #expect(
            String(decoding: try decode(Self.rawDeflate, .deflate, piece: piece, maximum: maximum), as: UTF8.self)
                == Self.text)
    }

    @Test("gzip members in a row decode one after the other; bytes after the end that start none are dropped")
    func members() throws {
        #expect(
            String(decoding: try decode(Self.twoMembers, .gzip, piece: 5, maximum: 3), as: UTF8.self)
                == "first member, second member")
        let trailing = Self.gzip + Data("garbage".utf8) + Self.gzip
        #expect(String(decoding: try decode(trailing, .gzip, piece: 1, maximum: 100), as: UTF8.self) == Self.text)
        let loneByte = Self.gzip + Data([0x1F])
        #expect(String(decoding: try decode(loneByte, .gzip, piece: 9, maximum: 100), as: UTF8.self) == Self.text)
        #expect(String(decoding: try decode(trailing, .gzip, piece: 9, maximum: 100), as: UTF8.self) == Self.text)
    }

    @Test("bytes that are not compressed data, and compressed data cut short, are bad responses")
    func invalid() throws {
        let garbage = #expect(throws: APIError.self) {
            _ = try decode(Data("not gzip at all, just text".utf8), .gzip, piece: 100, maximum: 100)
        }
        #expect(garbage?.kind == .transport(.badResponse))
        let cut = #expect(throws: APIError.self) {
            _ = try decode(Self.gzip.prefix(40), .gzip, piece: 100, maximum: 100)
        }
        // A body that ends before its compressed data is a lost connection (an event source reconnects).
        #expect(cut?.kind == .transport(.connectionLost))
        #expect(cut?.message.contains("ended before") == true, "\(String(describing: cut))")
        #expect(try decode(Data(), .gzip, piece: 1, maximum: 10).isEmpty)
    }

    @Test(
        "Content-Encoding: none and identity need no decoder; gzip, x-gzip and deflate do; others are refused",
        arguments: [
            (nil, "none"), ("", "none"), ("identity", "none"), ("gzip", "gzip"), ("x-gzip", "gzip"), ("GZIP", "gzip"),
            ("deflate", "deflate"), ("identity, gzip", "gzip"), ("br", "refused"), ("zstd", "refused"),
            ("compress", "refused"), ("gzip, gzip", "refused"), ("gzip, br", "refused"),
        ] as [(String?, String)])
    func codings(value: String?, expected: String) {
        do {
            let coding = try ContentDecoder.coding(of: value)
            #expect((coding?.rawValue ?? "none") == expected, "\(String(describing: value))")
        } catch {
            #expect(expected == "refused", "\(String(describing: value)): \(error)")
            #expect((error as? APIError)?.kind == .transport(.badResponse))
        }
    }

    @Test(
        "fuzz findings: output zlib holds after taking all the input, and bytes after the end however they are cut",
        arguments: [
            "BQAAK+tIzWDJWsgcHBwcHBwcHBwcHBwcHEAiy0gmzck9yak8BwPLSS8sSSCMAA==",
            "AAUeH4sIAAAAAAACA0sEAEO+t+gBAAAAHxr5775xAQAAH4sIAAAAAAACA0sEAEO+t+gBAAA=",
            "AAUeH4sIAAFkAQBKA0sEAEO+t+gBAAAAAB+LCAAAAAACH4sIAAEACAA=",
        ])
    func fuzzFindings(input: String) throws {
        // The fuzz target's input: a coding byte, the room per call, where to cut, the compressed bytes.
        let bytes = try #require(Data(base64Encoded: input))
        let coding: ContentDecoder.Coding = bytes[0] % 2 == 0 ? .gzip : .deflate
        let room = Int(bytes[1]) + 1
        let body = bytes.dropFirst(3)
        let cut = min(Int(bytes[2]), body.count)
        func decode(_ pieces: [Data], room: Int) -> Data? {
            guard let decoder = try? ContentDecoder(coding) else { return nil }
            var output = Data()
            do {
                for piece in pieces {
                    decoder.feed(piece)
                    while case let decoded = try decoder.decode(maximum: room), !decoded.isEmpty {
                        output.append(decoded)
                    }
                }
                try decoder.finish()
            } catch {
                return nil
            }
            return output
        }
        let whole = decode([Data(body)], room: 1 << 16)
        #expect(whole == decode([Data(body.prefix(cut)), Data(body.dropFirst(cut))], room: room))
        #expect(whole == decode(body.map { Data([$0]) }, room: 1))
    }
}
