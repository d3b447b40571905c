import Foundation

/// Counts a request body's bytes as a transport sends them and reports ``UploadProgress``: only
/// forward (a rewound body resent on a new connection is not counted twice), and at most every
/// 1/256 of the body or 64 KiB, so a 1 GiB upload reports hundreds of steps, not millions.
///
/// The transport calls ``sent(_:of:)`` on its own thread (``CurlTransport``'s loop, URLSession's
/// delegate queue); the report only hands a value to an `AsyncStream`, never runs user code there.
package final class UploadMeter: Sendable {
    private let report: @Sendable (UploadProgress) -> Void
    private let state = Locked((reported: Int64(-1), expected: Int64?.none))

    package init(report: @escaping @Sendable (UploadProgress) -> Void) {
        self.report = report
    }

    /// `total` of the body's `expected` bytes have gone out on the current attempt; `isEnd` when
    /// the body is complete (a stream of unknown length has no `expected` to say so).
    package func sent(_ total: Int64, of expected: Int64?, isEnd: Bool = false) {
        let progress = state.withLock { state -> UploadProgress? in
            state.expected = expected ?? state.expected
            let step = max(64 * 1024, (expected ?? 0) / 256)
            let isLast = isEnd || (expected.map { total >= $0 } ?? false)
            guard total > state.reported, isLast || total - max(0, state.reported) >= step || state.reported < 0
            else { return nil }
            state.reported = total
            return UploadProgress(bytesSent: total, bytesExpected: expected)
        }
        if let progress { report(progress) }
    }

    /// The furthest point reported.
    package var bytesSent: Int64 { max(0, state.withLock { $0.reported }) }
}
