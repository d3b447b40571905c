import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// CurlTransport's request body reader: what it accepts as a body file, and that it never reads
/// more or less than the length it announced.
@Suite("CurlTransport's request body", .timeLimit(.minutes(1)))
struct CurlUploadTests {
    private let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("curl-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    private func file(_ name: String, bytes: Int) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(repeating: 0x61, count: bytes).write(to: url)
        return url
    }

    private func readAll(_ upload: CurlUpload, chunk: Int = 4096, between: () throws -> Void = {}) throws -> Int {
        var buffer = [UInt8](repeating: 0, count: chunk)
        var total = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { try upload.read(into: $0, waker: {}) }
            guard let count, count > 0 else { return total }
            total += count
            try between()
        }
    }

    @Test("a named pipe, a folder and a symbolic link are refused at once, without waiting for a writer")
    func notRegularFiles() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipe = folder.appendingPathComponent("pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let target = try file("target", bytes: 10)
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let request = HTTPRequest(method: .post, url: URL(string: "http://127.0.0.1:9/")!)
        for (url, reason) in [(pipe, "not a regular file"), (folder, "not a regular file"), (link, "symbolic link")] {
            let error = #expect(throws: APIError.self) { _ = try CurlUpload(.file(url), request: request) }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.message.contains(reason) == true, "\(String(describing: error?.message))")
        }
        #expect(try readAll(CurlUpload(.file(target), request: request)) == 10)
    }

    @Test("a file that grows while it is read: never a byte past the announced length, and the body fails")
    func growingFile() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try file("growing", bytes: 64 << 10)
        let upload = try CurlUpload(.file(url), request: HTTPRequest(method: .post, url: url))
        #expect(upload.length == 64 << 10)
        let appender = try FileHandle(forWritingTo: url)
        defer { try? appender.close() }
        var read = 0
        let error = #expect(throws: APIError.self) {
            read = try readAll(upload) {
                try appender.seekToEnd()
                try appender.write(contentsOf: Data("GET /smuggled HTTP/1.1\r\n\r\n".utf8))
            }
        }
        #expect(upload.offset <= 64 << 10)
        #expect(read <= 64 << 10)
        #expect(error?.kind == .transport(.bodyFileChanged))
        #expect(error?.message.contains("changed size") == true, "\(String(describing: error))")
    }

    @Test("a file that shrinks while it is read fails the body instead of leaving libcurl waiting")
    func shrinkingFile() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try file("shrinking", bytes: 64 << 10)
        let upload = try CurlUpload(.file(url), request: HTTPRequest(method: .post, url: url))
        let error = #expect(throws: APIError.self) {
            _ = try readAll(upload) { #expect(truncate(url.path, 8192) == 0) }
        }
        #expect(error?.message.contains("changed size") == true, "\(String(describing: error))")
    }
}
