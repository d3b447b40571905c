import Courier
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A body file that changes while it is being sent, on a real keep-alive socket
/// (`scripts/servers/wire.py` records every byte and parses what follows a body as the next
/// request): never a byte past the announced `Content-Length`, never a second request smuggled
/// in, progress never past the total, and a failure instead of a hang when the file shrinks.
@Suite("Upload framing", .timeLimit(.minutes(2)))
struct UploadFramingTests {
    private static let size = 8 << 20

    private struct Receipt: Decodable { let bytes: Int64 }

    /// What the server saw on the connections of one key.
    struct Record: Decodable {
        struct Entry: Decodable {
            let target: String
            let contentLength: String?
            let transferEncoding: String?
            let contentType: String?
            let expect: String?
            let bodyBytes: Int64
            let complete: Bool

            enum CodingKeys: String, CodingKey {
                case target, complete, expect
                case contentLength = "content_length"
                case transferEncoding = "transfer_encoding"
                case contentType = "content_type"
                case bodyBytes = "body_bytes"
            }
        }
        let requests: [Entry]
        let bytes: Int64
    }

    /// How one upload went: its result, its progress, and what reached the server.
    struct Outcome {
        let result: Result<Int64, any Error>
        let steps: [UploadProgress]
        let changed: Bool
        let record: Record
        let elapsed: Duration
    }

    private static func record(_ server: ScriptServer, key: String) async throws -> Record {
        let recorder = APIClient(baseURL: server.url, transport: CurlTransport())
        return try await recorder.send(.get("record", query: ["key": key], as: Record.self))
    }

    /// A file of `size` bytes of `a`.
    private static func makeFile() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-framing-\(UUID().uuidString)")
        try Data(repeating: UInt8(ascii: "a"), count: size).write(to: file)
        return file
    }

    /// Uploads `file` to a slow reader and runs `change` on it once the first progress arrives.
    /// The server holds the body after its first piece until the file was changed, however slowly
    /// a loaded machine runs the watcher.
    private static func upload(
        _ kind: TransportKind, file: URL, key: String, change: @escaping @Sendable (URL) throws -> Void
    ) async throws -> Outcome {
        let server = try await ScriptServer.start(script: "wire.py")
        let client = APIClient(baseURL: server.url, transport: kind.make(timeout: .seconds(60)))
        let upload = client.upload(
            Request(
                method: .put, path: "upload", query: ["key": key, "pace": "0.002", "hold": "1"], body: .file(file),
                as: Receipt.self))
        let releaser = APIClient(baseURL: server.url, transport: CurlTransport())
        let watcher = Task {
            var steps: [UploadProgress] = []
            var changed = false
            for await step in upload.progress {
                steps.append(step)
                if !changed {
                    try change(file)
                    changed = true
                    _ = try await releaser.send(.get("release", query: ["key": key], as: Data.self))
                }
            }
            return (steps, changed)
        }
        let start = ContinuousClock.now
        let result: Result<Int64, any Error>
        do {
            result = .success(try await upload.value().bytes)
        } catch {
            result = .failure(error)
        }
        let elapsed = ContinuousClock.now - start
        let (steps, changed) = try await watcher.value
        let record = try await record(server, key: key)
        return Outcome(result: result, steps: steps, changed: changed, record: record, elapsed: elapsed)
    }

    /// What every transport must guarantee whatever the file did.
    private static func checkWire(_ outcome: Outcome, key: String) {
        #expect(outcome.changed, "the file was not changed during the upload: the test proves nothing")
        let targets = outcome.record.requests.map(\.target)
        #expect(targets == ["/upload?key=\(key)&pace=0.002&hold=1"], "the server saw another request: \(targets)")
        for request in outcome.record.requests {
            #expect(request.contentLength == String(size))
            #expect(request.transferEncoding == nil)
            #expect(
                request.bodyBytes <= Int64(size), "\(request.bodyBytes) body bytes for a Content-Length of \(size)")
        }
        let furthest = outcome.steps.map(\.bytesSent).max() ?? 0
        #expect(furthest <= Int64(size), "progress reached \(furthest) of \(size) bytes")
        #expect(outcome.steps.allSatisfy { $0.bytesExpected == Int64(size) }, "\(outcome.steps.suffix(2))")
    }

    @Test(
        "a body file that grows during the upload: nothing past its Content-Length, no second request, progress within the total",
        arguments: TransportKind.defaults)
    func growingFile(kind: TransportKind) async throws {
        let file = try Self.makeFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let key = UUID().uuidString
        let smuggled = Data("GET /smuggled?key=\(key) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

        let outcome = try await Self.upload(kind, file: file, key: key) { file in
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: smuggled + Data(repeating: UInt8(ascii: "b"), count: 1 << 20))
        }

        Self.checkWire(outcome, key: key)
        let error = try #require(outcome.result.failure as? APIError, "\(outcome.result)")
        #expect(error.kind == .transport(.bodyFileChanged))
        #expect(error.message.contains("changed size"), "\(error.message)")
        // The last piece is held back until the size is checked: the server never has a whole request.
        #expect(outcome.record.requests.first?.complete == false)
    }

    @Test(
        "a body file that shrinks during the upload fails at once instead of waiting for a timeout",
        arguments: TransportKind.defaults)
    func shrinkingFile(kind: TransportKind) async throws {
        let file = try Self.makeFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let key = UUID().uuidString

        let outcome = try await Self.upload(kind, file: file, key: key) { file in
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.truncate(atOffset: UInt64(Self.size / 2))
        }

        Self.checkWire(outcome, key: key)
        let error = try #require(outcome.result.failure as? APIError, "\(outcome.result)")
        #expect(error.kind == .transport(.bodyFileChanged), "\(error)")
        #expect(outcome.elapsed < .seconds(45), "the call ended after \(outcome.elapsed)")
        #expect(outcome.record.requests.first?.complete == false)
    }

    @Test(
        "a body file sent again after the server dropped its keep-alive connection arrives whole",
        arguments: TransportKind.defaults)
    func resentAfterReset(kind: TransportKind) async throws {
        let server = try await ScriptServer.start(script: "wire.py")
        let file = try Self.makeFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let key = UUID().uuidString
        let client = APIClient(baseURL: server.url, transport: kind.make(timeout: .seconds(30)))

        // A first request leaves a keep-alive connection; the server reads the second request on
        // it and resets it unanswered, and the transport sends the body again on a new one.
        _ = try await client.send(
            Request(method: .put, path: "upload", query: ["key": key], body: .data(Data("x".utf8)), as: Receipt.self))
        let receipt = try await client.send(
            Request(
                method: .put, path: "upload", query: ["key": key, "reset": "1"], body: .file(file), as: Receipt.self))

        #expect(receipt.bytes == Int64(Self.size))
        let requests = try await Self.record(server, key: key).requests
        try #require(requests.count == 3, "the connection was not reused and reset: \(requests.map(\.target))")
        #expect(requests[2].complete && requests[2].bodyBytes == Int64(Self.size), "\(requests[2])")
        #expect(requests[2].contentLength == String(Self.size))
    }

    @Test(
        "a 307 sends again the body file opened for the first hop, not the file its path names by then",
        arguments: TransportKind.defaults)
    func redirectAfterReplacement(kind: TransportKind) async throws {
        let server = try await ScriptServer.start(script: "wire.py")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-swap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body")
        let replacement = folder.appendingPathComponent("replacement")
        try Data(repeating: UInt8(ascii: "a"), count: 1000).write(to: file)
        try Data(repeating: UInt8(ascii: "b"), count: 3000).write(to: replacement)
        let key = UUID().uuidString
        let client = APIClient(baseURL: server.url, transport: kind.make(timeout: .seconds(30)))

        let receipt = try await client.send(
            Request(
                method: .put, path: "swap", query: ["key": key, "from": replacement.path, "into": file.path],
                body: .file(file), as: Receipt.self))

        // Before: the second hop opened the path again and sent the 3,000 bytes that had replaced it.
        #expect(receipt.bytes == 1000)
        let requests = try await Self.record(server, key: key).requests
        #expect(requests.map(\.contentLength) == ["1000", "1000"], "\(requests)")
        #expect(try Data(contentsOf: file).count == 3000, "the file was not replaced: the test proves nothing")
    }

    @Test(
        "a FIFO, a directory, a device or a symbolic link as body file is refused before any I/O",
        arguments: TransportKind.defaults, ["fifo", "directory", "device", "link"])
    func notARegularFile(transport: TransportKind, kind: String) async throws {
        let server = try await ScriptServer.start(script: "wire.py")
        let key = UUID().uuidString
        let path: URL
        var linkTarget: URL?
        switch kind {
        case "fifo":
            path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fifo-\(UUID().uuidString)")
            try #require(mkfifo(path.path, 0o600) == 0)
        case "directory":
            path = FileManager.default.temporaryDirectory
        case "link":
            path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-link-\(UUID().uuidString)")
            let target = try Self.makeFile()
            try FileManager.default.createSymbolicLink(at: path, withDestinationURL: target)
            linkTarget = target
        default:
            path = URL(fileURLWithPath: "/dev/zero")
        }
        defer {
            if kind == "fifo" || kind == "link" { try? FileManager.default.removeItem(at: path) }
            if let linkTarget { try? FileManager.default.removeItem(at: linkTarget) }
        }
        let url = server.url.appending(path: "upload").appending(queryItems: [URLQueryItem(name: "key", value: key)])
        let error = try await #require(throws: APIError.self) {
            try await transport.make(timeout: .seconds(20)).send(HTTPRequest(method: .put, url: url, body: .file(path)))
        }
        #expect(error.kind == .invalidRequest, "\(error)")
        #expect(error.message.contains(kind == "link" ? "symbolic link" : "not a regular file"), "\(error.message)")
        #expect(try await Self.record(server, key: key).requests.isEmpty)
    }

    @Test(
        "a body file goes out framed by its Content-Length alone, with no header the caller did not ask for",
        arguments: TransportKind.defaults)
    func headersAsAsked(kind: TransportKind) async throws {
        let server = try await ScriptServer.start(script: "wire.py")
        let file = try Self.makeFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let key = UUID().uuidString
        let url = server.url.appending(path: "upload").appending(queryItems: [URLQueryItem(name: "key", value: key)])

        let response = try await kind.make().send(HTTPRequest(method: .post, url: url, body: .file(file)))

        #expect(response.status == .ok)
        let requests = try await Self.record(server, key: key).requests
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.contentLength == String(Self.size))
        #expect(request.transferEncoding == nil)
        #expect(request.contentType == nil)
        #expect(request.expect == nil)
        #expect(request.complete && request.bodyBytes == Int64(Self.size))
    }
}
