import Foundation

/// A download to disk in progress: its progress as an `AsyncSequence`, and the file when done.
///
/// ```swift
/// let download = client.download(.get("files/big.iso", as: Data.self), to: destination)
/// for await progress in download.progress { bar.update(progress.fractionCompleted) }
/// let file = try await download.file()
/// ```
///
/// Cancelling (``cancel()``, or cancelling the task awaiting ``file()``) stops the transfer and
/// removes the temporary file; nothing is left at the destination.
public struct Download: Sendable {
    /// Progress events, the latest first when the reader is slower than the network; finishes when
    /// the download does.
    public let progress: AsyncStream<DownloadProgress>
    private let task: Task<URL, any Error>

    init(progress: AsyncStream<DownloadProgress>, task: Task<URL, any Error>) {
        self.progress = progress
        self.task = task
    }

    /// Waits for the file; cancelling the waiting task cancels the download.
    ///
    /// - Returns: Where the file is.
    /// - Throws: ``APIError`` (the status, a transport failure, the size limit, an existing
    ///   destination), or `CancellationError`.
    public func file() async throws -> URL {
        try await task.valueCancellingWithWaiter
    }

    /// Stops the download and removes its temporary file.
    public func cancel() {
        task.cancel()
    }
}
