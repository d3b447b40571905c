/// A call with a request body in progress: the body's progress as an `AsyncSequence`, and the
/// decoded response when done.
///
/// ```swift
/// let upload = client.upload(UploadPhoto(file: photo))
/// for await step in upload.progress { print(step) }    // 1048576 of 4194304 bytes sent (25%)
/// let receipt = try await upload.value()
/// ```
///
/// Cancelling (``cancel()``, or cancelling the task awaiting ``value()``) stops the transfer.
public struct Upload<Value: Sendable>: Sendable {
    /// Progress events, the latest first when the reader is slower than the network; finishes when
    /// the call does. A body of `n` bytes sent whole ends at `n of n`.
    public let progress: AsyncStream<UploadProgress>
    private let task: Task<Value, any Error>

    init(progress: AsyncStream<UploadProgress>, task: Task<Value, any Error>) {
        self.progress = progress
        self.task = task
    }

    /// Waits for the response; cancelling the waiting task cancels the upload.
    ///
    /// - Throws: ``APIError``, or `CancellationError`.
    public func value() async throws -> Value {
        try await task.valueCancellingWithWaiter
    }

    /// Stops the upload.
    public func cancel() {
        task.cancel()
    }
}
