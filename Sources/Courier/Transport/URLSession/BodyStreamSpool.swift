import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stream body written to a temporary file before a ``URLSessionTransport`` sends it, as a
/// ``BodyFile`` with an exact `Content-Length`.
///
/// Why not stream it: FoundationNetworking reads a body stream on the session's one queue and
/// ends the body at the first `hasBytesAvailable == false` (see ``BodyFileStream``), so a live
/// stream could only be read there by blocking, which would hold up every other task of the
/// session, or end the body early. The spool keeps the stream's rules: read once, its declared
/// length checked, its producer's silence limited by the idle timeout and its size by
/// ``URLSessionTransport/Configuration/maximumSpooledStreamSize``, and memory flat (the chunks go
/// through the same bounded ``BodyStreamReader`` as CurlTransport's).
///
/// The file is made with `O_EXCL`, mode 0600, and unlinked as soon as it is reopened for reading:
/// nothing of it stays on disk once the exchange ends.
enum BodyStreamSpool {
    /// Reads `stream` whole into an unlinked temporary file and opens it for sending.
    ///
    /// - Throws: ``APIError``: ``APIError/Kind/invalidRequest`` when the stream was sent before;
    ///   ``TransportFailure/timedOut`` when the producer is silent for `idleTimeout`;
    ///   ``TransportFailure/deadlineExceeded`` past `deadline`; ``TransportFailure/bodyLengthMismatch``;
    ///   ``TransportFailure/other`` when the producer throws, the stream outgrows `limit` or the
    ///   file cannot be written. `CancellationError` when the task is cancelled.
    static func spool(
        _ stream: HTTPBodyStream, of request: HTTPRequest, limit: Int64, idleTimeout: Duration,
        deadline: ContinuousClock.Instant
    ) async throws -> BodyFile {
        if let length = stream.length, length > limit {
            throw failure(tooLarge(limit, declared: length), request)
        }
        let reader = try BodyStreamReader(stream, request: request)
        defer { reader.close() }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-body-\(UUID().uuidString)")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw failure("cannot make \(url.path): \(String(cString: strerror(errno)))", request)
        }
        defer { unlink(url.path) }
        do {
            defer { close(descriptor) }
            var written: Int64 = 0
            try await reader.drain(idleTimeout: idleTimeout, deadline: deadline) { bytes in
                written += Int64(bytes.count)
                guard written <= limit else { throw failure(tooLarge(limit, declared: nil), request) }
                try writeAll(bytes, to: descriptor, request: request)
            }
        }
        return try BodyFile(opening: url, for: request)
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, request: HTTPRequest) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let count = write(descriptor, base + done, bytes.count - done)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw failure(
                    "writing the request body stream to a temporary file failed: "
                        + String(cString: strerror(errno)), request)
            }
            done += count
        }
    }

    private static func tooLarge(_ limit: Int64, declared: Int64?) -> String {
        let what = declared.map { "declares \($0) bytes, more" } ?? "is larger"
        return "the request body stream \(what) than the \(limit) bytes URLSessionTransport may keep in a "
            + "temporary file (maximumSpooledStreamSize; CurlTransport streams it)"
    }

    private static func failure(_ message: String, _ request: HTTPRequest) -> APIError {
        APIError(.transport(.other), message: message, request: request)
    }
}
