import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Request bodies: a body file streamed from its open descriptor, and the body's progress.
extension URLSessionExchange {
    /// A new stream over the body file from its first byte, or `nil` when the body is not a file:
    /// one for the request, and another each time URLSession must send the body again.
    func makeBodyStream() -> InputStream? {
        guard let bodyFile else { return nil }
        return BodyFileStream.make(bodyFile) { [weak self] problem in self?.bodyFileFailed(problem) }
    }

    /// The body file changed size or could not be read: the call fails with that, and the task,
    /// whose body the stream has just cut short, is cancelled.
    private func bodyFileFailed(_ problem: BodyFile.Problem) {
        guard let bodyFile else { return }
        finish(.failure(bodyFile.error(for: problem, request: request)))
        cancelTask()
    }

    /// The request body's progress, from the delegate; never past the body's length (URLSession
    /// keeps counting when it sends a body again on a new connection).
    func bodySent(_ total: Int64, of expected: Int64) {
        guard let length = bodyFile?.length ?? (expected > 0 ? expected : request.body?.length) else {
            uploadMeter?.sent(total, of: nil)
            return
        }
        uploadMeter?.sent(min(total, length), of: length)
    }
}
