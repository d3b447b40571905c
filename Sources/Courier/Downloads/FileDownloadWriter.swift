import Foundation

/// Writes a streamed body into a file, resuming at its end after a `206` or starting over after a
/// `200`, enforcing the size limit and reporting progress.
///
/// `@unchecked Sendable`: every mutable property is read and written only while `lock` is held;
/// the transport never calls one exchange's consumer concurrently.
final class FileDownloadWriter: ResponseBodyConsumer, @unchecked Sendable {
    let file: URL
    private let handle: FileHandle
    private let maximumSize: Int64?
    private let onProgress: @Sendable (DownloadProgress) -> Void
    /// Refuses a head before its body is read (the destination it names exists already).
    private let checkHead: @Sendable (HTTPResponse) throws -> Void
    private let lock = NSLock()
    private var written: Int64 = 0
    private var expected: Int64?
    private var rangeStart: Int64 = 0
    private var validator: String?
    private var head: HTTPResponse?
    private var request: HTTPRequest?
    private var reported: Int64 = -1
    /// Set once the body proved too large to stream piece by piece: later attempts let the transport
    /// buffer it on disk.
    private var buffersOnDisk = false

    init(
        file: URL, maximumSize: Int64?, checkHead: @escaping @Sendable (HTTPResponse) throws -> Void = { _ in },
        onProgress: @escaping @Sendable (DownloadProgress) -> Void
    ) throws {
        self.checkHead = checkHead
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw APIError(.invalidRequest, message: "could not create the temporary file \(file.path)")
        }
        self.file = file
        self.handle = try FileHandle(forWritingTo: file)
        self.maximumSize = maximumSize
        self.onProgress = onProgress
    }

    /// The headers to resume with (`Range`, and `If-Range` when the first response had a
    /// validator), or none when nothing was written yet; remembers where this attempt starts.
    func beginAttempt(_ request: HTTPRequest) -> HTTPRequest {
        lock.lock()
        defer { lock.unlock() }
        var request = request
        rangeStart = written
        head = nil
        if written > 0 {
            request.headers.set(.range, "bytes=\(written)-")
            if let validator { request.headers.set("If-Range", validator) }
        }
        self.request = request
        return request
    }

    /// The head of the response whose body went into the file, if one did.
    var acceptedHead: HTTPResponse? {
        lock.lock()
        defer { lock.unlock() }
        return head
    }

    /// What is in the file, and what is expected.
    var progress: DownloadProgress {
        lock.lock()
        defer { lock.unlock() }
        return DownloadProgress(bytesReceived: written, bytesExpected: expected)
    }

    /// The bytes in the file (for the log line of the exchange).
    var streamedByteCount: Int64? { progress.bytesReceived }

    func responseHeadArrived(_ head: HTTPResponse) throws -> Bool {
        guard (200..<300).contains(head.status.code) else { return false }
        try checkHead(head)
        lock.lock()
        defer { lock.unlock() }
        if head.status == .partialContent, let range = Self.contentRange(head) {
            guard range.start == rangeStart, rangeStart == written else {
                throw APIError(
                    .transport(.badResponse),
                    message: "the server resumed at byte \(range.start), not at byte \(written)", request: request,
                    response: head)
            }
            expected = range.total ?? expected
        } else {
            // A full body (the server ignored Range, or this is the first attempt): start from zero.
            try handle.truncate(atOffset: 0)
            try handle.seek(toOffset: 0)
            written = 0
            let encoded = head.headers[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
            expected = encoded ? nil : head.headers[.contentLength].flatMap { Int64($0) }
            validator = head.headers[.eTag].flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? head.headers[.lastModified]
        }
        if let maximumSize, let expected, expected > maximumSize {
            throw tooLarge(maximumSize, head: head)
        }
        self.head = head
        report()
        return true
    }

    /// Refuses a length announced before the exchange (by a `HEAD`) over the size limit.
    func checkAnnouncedLength(_ length: Int64) throws {
        if let maximumSize, length > maximumSize { throw tooLarge(maximumSize, head: nil) }
    }

    /// Notes that the body is to be buffered on disk by the transport from now on.
    func didFallBehind() {
        lock.lock()
        buffersOnDisk = true
        lock.unlock()
    }

    var prefersDiskBuffering: Bool {
        lock.lock()
        defer { lock.unlock() }
        return buffersOnDisk
    }

    func bufferedBytesArrived(_ count: Int64) throws {
        lock.lock()
        defer { lock.unlock() }
        let total = rangeStart + count
        if let maximumSize, total > maximumSize {
            throw tooLarge(maximumSize, head: head)
        }
        guard total > reported else { return }
        reported = total
        onProgress(DownloadProgress(bytesReceived: total, bytesExpected: expected))
    }

    /// Reports progress when it moved forward (a restart from zero is reported too). Call with the lock held.
    private func report() {
        guard written > reported || written == 0 else { return }
        reported = written
        onProgress(DownloadProgress(bytesReceived: written, bytesExpected: expected))
    }

    func receive(_ piece: Data) throws {
        lock.lock()
        defer { lock.unlock() }
        if let maximumSize, written + Int64(piece.count) > maximumSize {
            throw tooLarge(maximumSize, head: head)
        }
        try handle.write(contentsOf: piece)
        written += Int64(piece.count)
        report()
    }

    /// Whether the file holds the whole body the server announced.
    var isComplete: Bool {
        lock.lock()
        defer { lock.unlock() }
        return expected.map { written == $0 } ?? true
    }

    func close() {
        try? handle.close()
    }

    private func tooLarge(_ limit: Int64, head: HTTPResponse?) -> APIError {
        APIError(
            .transport(.responseTooLarge), message: "the download is larger than the limit of \(limit) bytes",
            request: request, response: head)
    }

    /// `Content-Range: bytes 100-199/1000` → start 100, total 1000 (`*` for an unknown total).
    private static func contentRange(_ head: HTTPResponse) -> (start: Int64, total: Int64?)? {
        guard let value = head.headers["Content-Range"]?.lowercased(), value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard let range = parts.first, let start = range.split(separator: "-").first.flatMap({ Int64($0) }) else {
            return nil
        }
        let total = parts.count == 2 ? Int64(parts[1]) : nil
        return (start, total)
    }
}
