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
            try await copy(
                reader, to: descriptor, request: request, limit: limit, idleTimeout: idleTimeout, deadline: deadline)
        }
        return try BodyFile(opening: url, for: request)
    }

    private static func copy(
        _ reader: BodyStreamReader, to descriptor: Int32, request: HTTPRequest, limit: Int64, idleTimeout: Duration,
        deadline: ContinuousClock.Instant
    ) async throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var written: Int64 = 0
        while true {
            try Task.checkCancellation()
            let signal = Signal()
            switch try reader.read(into: buffer, waker: { signal.fire() }) {
            case .end:
                return
            case .bytes(let count):
                written += Int64(count)
                guard written <= limit else {
                    throw failure(
                        "the request body stream is larger than the \(limit) bytes URLSessionTransport may "
                            + "keep in a temporary file (maximumSpooledStreamSize; CurlTransport streams it)", request)
                }
                try writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), to: descriptor, request: request)
            case .wait:
                let left = deadline - ContinuousClock.now
                guard left > .zero, await signal.wait(for: min(idleTimeout, left)) else {
                    try Task.checkCancellation()
                    if ContinuousClock.now >= deadline {
                        throw APIError(
                            .transport(.deadlineExceeded), message: "the request body stream was not complete in time",
                            request: request)
                    }
                    throw APIError(
                        .transport(.timedOut),
                        message: "the request body stream yielded nothing for \(DurationText.seconds(idleTimeout))",
                        request: request)
                }
            }
        }
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

    private static func failure(_ message: String, _ request: HTTPRequest) -> APIError {
        APIError(.transport(.other), message: message, request: request)
    }

    /// A one-shot wake-up: fired by the reader's waker, awaited with a time limit and cancellation.
    private final class Signal: Sendable {
        /// `true` once fired, `false` once the wait gave up; and who waits.
        private let state = Locked<(outcome: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

        func fire() { end(true) }

        /// `true` when fired, `false` after `timeout` or on cancellation (the caller checks which).
        func wait(for timeout: Duration) async -> Bool {
            let timer = Task { [self] in
                try? await Task.sleep(for: timeout)
                end(false)
            }
            defer { timer.cancel() }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let outcome = state.withLock { state in
                        if state.outcome == nil { state.waiter = continuation }
                        return state.outcome
                    }
                    if let outcome { continuation.resume(returning: outcome) }
                }
            } onCancel: {
                end(false)
            }
        }

        private func end(_ value: Bool) {
            let (waiter, outcome) = state.withLock { state in
                if state.outcome == nil { state.outcome = value }
                defer { state.waiter = nil }
                return (state.waiter, state.outcome ?? value)
            }
            waiter?.resume(returning: outcome)
        }
    }
}
