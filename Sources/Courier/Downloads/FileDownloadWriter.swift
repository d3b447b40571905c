import Foundation

/// Writes a streamed body into a file, resuming at its end after a `206` or starting over after a
/// `200`, enforcing the size limit and reporting progress.
///
/// Its state is one value behind one lock (``Locked``); the file is written while the lock is held
/// (the transport never calls one exchange's consumer concurrently, so no one waits for it), and
/// progress is reported after it is released.
final class FileDownloadWriter: ResponseBodyConsumer, Sendable {
    private struct State {
        var written: Int64 = 0
        var expected: Int64?
        var rangeStart: Int64 = 0
        var validator: String?
        var head: HTTPResponse?
        var request: HTTPRequest?
        var reported: Int64 = -1
        /// Set once the body proved too large to stream piece by piece: later attempts let the
        /// transport buffer it on disk.
        var buffersOnDisk = false

        /// The progress to report, when it moved forward (a restart from zero is reported too).
        mutating func progressToReport() -> DownloadProgress? {
            guard written > reported || written == 0 else { return nil }
            reported = written
            return DownloadProgress(bytesReceived: written, bytesExpected: expected)
        }
    }

    let file: URL
    private let handle: FileHandle
    private let maximumSize: Int64?
    private let onProgress: @Sendable (DownloadProgress) -> Void
    /// Refuses a head before its body is read (the destination it names exists already).
    private let checkHead: @Sendable (HTTPResponse) throws -> Void
    private let state = Locked(State())

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
        state.withLock { state in
            var request = request
            state.rangeStart = state.written
            state.head = nil
            if state.written > 0 {
                request.headers.set(.range, "bytes=\(state.written)-")
                if let validator = state.validator { request.headers.set("If-Range", validator) }
            }
            state.request = request
            return request
        }
    }

    /// The head of the response whose body went into the file, if one did.
    var acceptedHead: HTTPResponse? {
        state.withLock { $0.head }
    }

    /// What is in the file, and what is expected.
    var progress: DownloadProgress {
        state.withLock { DownloadProgress(bytesReceived: $0.written, bytesExpected: $0.expected) }
    }

    /// The bytes in the file (for the log line of the exchange).
    var streamedByteCount: Int64? { progress.bytesReceived }

    func responseHeadArrived(_ head: HTTPResponse) throws -> Bool {
        guard (200..<300).contains(head.status.code) else { return false }
        try checkHead(head)
        let progress = try state.withLock { state in
            if head.status == .partialContent, let range = Self.contentRange(head) {
                guard range.start == state.rangeStart, state.rangeStart == state.written else {
                    throw APIError(
                        .transport(.badResponse),
                        message: "the server resumed at byte \(range.start), not at byte \(state.written)",
                        request: state.request, response: head)
                }
                state.expected = range.total ?? state.expected
            } else {
                // A full body (the server ignored Range, or this is the first attempt): start from zero.
                try handle.truncate(atOffset: 0)
                try handle.seek(toOffset: 0)
                state.written = 0
                let encoded = head.headers[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
                state.expected = encoded ? nil : head.headers[.contentLength].flatMap { Int64($0) }
                state.validator =
                    head.headers[.eTag].flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? head.headers[.lastModified]
            }
            if let maximumSize, let expected = state.expected, expected > maximumSize {
                throw tooLarge(maximumSize, request: state.request, head: head)
            }
            state.head = head
            return state.progressToReport()
        }
        if let progress { onProgress(progress) }
        return true
    }

    /// Refuses a length announced before the exchange (by a `HEAD`) over the size limit.
    func checkAnnouncedLength(_ length: Int64) throws {
        if let maximumSize, length > maximumSize { throw tooLarge(maximumSize, request: nil, head: nil) }
    }

    /// Notes that the body is to be buffered on disk by the transport from now on.
    func didFallBehind() {
        state.withLock { $0.buffersOnDisk = true }
    }

    var prefersDiskBuffering: Bool {
        state.withLock { $0.buffersOnDisk }
    }

    func bufferedBytesArrived(_ count: Int64) throws {
        let progress = try state.withLock { state -> DownloadProgress? in
            let total = state.rangeStart + count
            if let maximumSize, total > maximumSize {
                throw tooLarge(maximumSize, request: state.request, head: state.head)
            }
            guard total > state.reported else { return nil }
            state.reported = total
            return DownloadProgress(bytesReceived: total, bytesExpected: state.expected)
        }
        if let progress { onProgress(progress) }
    }

    func receive(_ piece: Data) throws {
        let progress = try state.withLock { state in
            if let maximumSize, state.written + Int64(piece.count) > maximumSize {
                throw tooLarge(maximumSize, request: state.request, head: state.head)
            }
            try handle.write(contentsOf: piece)
            state.written += Int64(piece.count)
            return state.progressToReport()
        }
        if let progress { onProgress(progress) }
    }

    /// Whether the file holds the whole body the server announced.
    var isComplete: Bool {
        state.withLock { state in state.expected.map { state.written == $0 } ?? true }
    }

    func close() {
        try? handle.close()
    }

    private func tooLarge(_ limit: Int64, request: HTTPRequest?, head: HTTPResponse?) -> APIError {
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
