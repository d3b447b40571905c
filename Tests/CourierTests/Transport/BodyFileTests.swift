import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#endif

/// The body file reader URLSessionTransport streams from: the length and the bytes of the file it
/// opened, never more, and a failure before the last piece when the size changed.
@Suite("Body file reader")
struct BodyFileTests {
    private let request = HTTPRequest(method: .put, url: URL(string: "http://127.0.0.1:9/upload")!)

    private func makeFile(_ contents: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-body-\(UUID().uuidString)")
        try Data(contents.utf8).write(to: url)
        return url
    }

    private func append(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Reads the whole body `piece` bytes at a time; the bytes read before a failure, and the failure.
    private func readAll(_ file: BodyFile, piece: Int = 4) -> (String, BodyFile.Problem?) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 1)
        defer { buffer.deallocate() }
        var read = Data()
        while true {
            do {
                let count = try file.read(at: Int64(read.count), into: buffer)
                guard count > 0 else { return (String(decoding: read, as: UTF8.self), nil) }
                read.append(contentsOf: buffer[..<count])
            } catch {
                return (String(decoding: read, as: UTF8.self), error)
            }
        }
    }

    @Test("reads exactly the length it measured when it opened the file")
    func exactLength() throws {
        let url = try makeFile("hello, world")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try BodyFile(opening: url, for: request)

        #expect(file.length == 12)
        let (body, problem) = readAll(file)
        #expect(body == "hello, world")
        #expect(problem == nil)
    }

    @Test("a file that grew fails before its last piece is handed out")
    func grew() throws {
        let url = try makeFile("0123456789")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try BodyFile(opening: url, for: request)
        try append("GET /smuggled HTTP/1.1\r\n\r\n", to: url)

        let (body, problem) = readAll(file)

        #expect(body == "01234567", "the last piece went out: \(body)")
        #expect(problem == .changedSize(36))
        let error = file.error(for: try #require(problem), request: request)
        #expect(error.kind == .transport(.bodyFileChanged))
        #expect(error.message.contains("10 bytes announced, 36 now"), "\(error.message)")
    }

    @Test("a file that shrank fails at the read that finds its end")
    func shrank() throws {
        let url = try makeFile("0123456789")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try BodyFile(opening: url, for: request)
        try FileHandle(forWritingTo: url).truncate(atOffset: 6)

        let (body, problem) = readAll(file)

        #expect(body == "012345")
        #expect(problem == .changedSize(6))
    }

    @Test("a path replaced after the open still reads the file that was opened and measured")
    func replacedPath() throws {
        let url = try makeFile("original")
        let other = try makeFile("a much longer replacement")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try BodyFile(opening: url, for: request)
        try #require(rename(other.path, url.path) == 0)

        #expect(file.length == 8)
        #expect(readAll(file).0 == "original")
    }

    @Test("a symbolic link is refused: a link planted in a shared folder must not send what it points to")
    func symbolicLink() throws {
        let target = try makeFile("through a link")
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("courier-link-\(UUID().uuidString)")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        defer {
            try? FileManager.default.removeItem(at: link)
            try? FileManager.default.removeItem(at: target)
        }

        let error = try #require(throws: APIError.self) { try BodyFile(opening: link, for: request) }
        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("symbolic link"), "\(error.message)")
        #expect(readAll(try BodyFile(opening: target, for: request)).0 == "through a link")
    }

    @Test("a missing file, a directory and a device are refused as invalid requests")
    func refused() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-none-\(UUID().uuidString)")
        for url in [missing, FileManager.default.temporaryDirectory, URL(fileURLWithPath: "/dev/zero")] {
            let error = try #require(throws: APIError.self) { try BodyFile(opening: url, for: request) }
            #expect(error.kind == .invalidRequest, "\(url.path): \(error)")
        }
    }

    @Test("the pump behind Apple's bound streams writes the body whole, or stops before its last piece")
    func pump() throws {
        let url = try makeFile(String(repeating: "x", count: 200_000))
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try BodyFile(opening: url, for: request)

        let whole = OutputStream(toMemory: ())
        BodyFilePump.copy(file, into: whole) { Issue.record("unexpected \($0)") }
        let written = whole.property(forKey: .dataWrittenToMemoryStreamKey) as? Data
        #expect(written?.count == 200_000)

        try append("more", to: url)
        let cut = OutputStream(toMemory: ())
        var problems: [BodyFile.Problem] = []
        BodyFilePump.copy(file, into: cut) { problems.append($0) }
        let partial = cut.property(forKey: .dataWrittenToMemoryStreamKey) as? Data
        #expect(problems == [.changedSize(200_004)])
        #expect((partial?.count ?? 0) < 200_000)
    }
}
