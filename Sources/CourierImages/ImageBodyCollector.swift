import Courier
import Foundation

/// Collects an image body in memory up to the loader's size limit, reporting progress.
///
/// `@unchecked Sendable`: `state` is only touched under its lock; the transport never calls one
/// exchange's consumer concurrently.
final class ImageBodyCollector: ResponseBodyConsumer, @unchecked Sendable {
    private let limit: Int
    private let onProgress: @Sendable (DownloadProgress) -> Void
    private let state = Locked((body: Data(), expected: Int64?.none))

    init(limit: Int, onProgress: @escaping @Sendable (DownloadProgress) -> Void) {
        self.limit = limit
        self.onProgress = onProgress
    }

    var body: Data { state.withLock { $0.body } }

    func responseHeadArrived(_ head: HTTPResponse) throws -> Bool {
        guard (200..<300).contains(head.status.code) else { return false }
        let expected = head.headers[.contentLength].flatMap { Int64($0) }
        if let expected, expected > Int64(limit) { throw tooLarge(head) }
        state.withLock { $0 = (Data(), expected) }
        onProgress(DownloadProgress(bytesReceived: 0, bytesExpected: expected))
        return true
    }

    func receive(_ piece: Data) throws {
        let progress = try state.withLock { state -> DownloadProgress in
            guard state.body.count + piece.count <= limit else { throw tooLarge(nil) }
            state.body.append(piece)
            return DownloadProgress(bytesReceived: Int64(state.body.count), bytesExpected: state.expected)
        }
        onProgress(progress)
    }

    private func tooLarge(_ head: HTTPResponse?) -> APIError {
        APIError(
            .transport(.responseTooLarge), message: "the image is larger than the loader's limit of \(limit) bytes",
            response: head)
    }
}
