import Courier
import Foundation

/// Collects an image body in memory up to the loader's size limit, reporting progress; keeps at
/// most `errorBodyLimit` bytes of an error status's body (an error page is never an image, and a
/// hostile server could otherwise send 100 MiB of it).
final class ImageBodyCollector: ResponseBodyConsumer, Sendable {
    private let limit: Int
    private let onProgress: @Sendable (DownloadProgress) -> Void
    private let state = Locked((body: Data(), expected: Int64?.none, errorHead: HTTPResponse?.none))

    /// The most bytes of a non-2xx body kept for the error.
    static let errorBodyLimit = 64 * 1024

    init(limit: Int, onProgress: @escaping @Sendable (DownloadProgress) -> Void) {
        self.limit = limit
        self.onProgress = onProgress
    }

    var body: Data { state.withLock { $0.body } }

    /// The image bytes taken so far (for ``HTTPResponse/streamedBodyBytes`` and the log line).
    var streamedByteCount: Int64? { state.withLock { $0.errorHead == nil ? Int64($0.body.count) : 0 } }

    /// The body kept of an error status: its first `errorBodyLimit` bytes.
    var errorBody: Data { state.withLock { $0.errorHead != nil ? $0.body : Data() } }

    func responseHeadArrived(_ head: HTTPResponse) throws -> Bool {
        guard (200..<300).contains(head.status.code) else {
            if let announced = head.headers[.contentLength].flatMap(Int.init), announced > Self.errorBodyLimit {
                // Not worth a byte more: the status says enough.
                throw cutError(head)
            }
            state.withLock { $0 = (Data(), nil, head) }
            return true
        }
        let expected = head.headers[.contentLength].flatMap { Int64($0) }
        if let expected, expected > Int64(limit) { throw tooLarge(head) }
        state.withLock { $0 = (Data(), expected, nil) }
        onProgress(DownloadProgress(bytesReceived: 0, bytesExpected: expected))
        return true
    }

    func receive(_ piece: Data) throws {
        if let errorHead = state.withLock({ $0.errorHead }) {
            try keepErrorBody(piece, head: errorHead)
            return
        }
        let progress = try state.withLock { state -> DownloadProgress in
            guard state.body.count + piece.count <= limit else { throw tooLarge(nil) }
            state.body.append(piece)
            return DownloadProgress(bytesReceived: Int64(state.body.count), bytesExpected: state.expected)
        }
        onProgress(progress)
    }

    /// Keeps the piece of an error body up to `errorBodyLimit`; past it the rest is not read
    /// (the status says enough) and the exchange fails with what was kept.
    private func keepErrorBody(_ piece: Data, head: HTTPResponse) throws {
        let full = state.withLock { state -> Data? in
            state.body.append(piece.prefix(max(0, Self.errorBodyLimit - state.body.count)))
            return state.body.count >= Self.errorBodyLimit ? state.body : nil
        }
        guard let full else { return }
        var response = head
        response.body = full
        throw cutError(response)
    }

    /// The error of an error status whose body is over `errorBodyLimit`: `response` carries what
    /// was kept of it.
    private func cutError(_ response: HTTPResponse) -> APIError {
        APIError(
            .unacceptableStatus(response.status),
            message: "the server answered \(response.status) with an error body over \(Self.errorBodyLimit) bytes",
            response: response)
    }

    private func tooLarge(_ head: HTTPResponse?) -> APIError {
        APIError(
            .transport(.responseTooLarge), message: "the image is larger than the loader's limit of \(limit) bytes",
            response: head)
    }
}
