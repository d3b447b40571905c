import Foundation

extension BodyStreamReader {
    /// Reads the stream to its end on the calling task, handing each piece to `sink`: for a
    /// transport that collects a stream before sending it (URLSessionTransport's spool), or checks
    /// one that declared no bytes (libcurl never reads a body it was told is empty, so the
    /// producer's end, its errors and any byte too many are found here).
    ///
    /// - Throws: ``APIError``: ``TransportFailure/timedOut`` when the producer is silent for
    ///   `idleTimeout`, ``TransportFailure/deadlineExceeded`` past `deadline`, what ``read(into:waker:)``
    ///   throws, or what `sink` throws. `CancellationError` when the task is cancelled.
    func drain(
        idleTimeout: Duration, deadline: ContinuousClock.Instant,
        into sink: (UnsafeRawBufferPointer) throws -> Void
    ) async throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            try Task.checkCancellation()
            let signal = Signal()
            switch try read(into: buffer, waker: { signal.fire() }) {
            case .end:
                return
            case .bytes(let count):
                try sink(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
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
