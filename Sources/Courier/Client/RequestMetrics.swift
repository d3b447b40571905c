import Foundation

/// How one call went: when, how long, how many attempts and redirects, how many bytes, and how it
/// ended. Measured by Courier itself, so it is the same on Linux (which never delivers
/// `URLSessionTaskMetrics`) as on Apple platforms.
///
/// Read it from ``APIResponse/metrics``, or for every call, failed ones included, through a
/// ``MetricsMiddleware``.
public struct RequestMetrics: Sendable {
    /// The request as last sent to the transport (or as it entered the chain when none was sent).
    public var request: HTTPRequest
    /// When the call started.
    public var startDate: Date
    /// How long it took, measured on a monotonic clock.
    public var duration: Duration
    /// How many times a request reached the transport: more than one after retries or a refresh,
    /// zero when a cache answered or another identical call's exchange was shared.
    public var attempts: Int
    /// How many redirects the transport followed, over all attempts.
    public var redirects: Int
    /// Request body bytes handed to the transport, over all attempts.
    public var bytesSent: Int64
    /// Response body bytes received (decoded), over all attempts.
    public var bytesReceived: Int64
    /// The final response's status, when one arrived.
    public var status: HTTPStatus?
    /// The error the call ended with, if it failed.
    public var error: (any Error)?

    /// When the call ended.
    public var endDate: Date {
        startDate.addingTimeInterval(duration.timeInterval)
    }

    /// Creates metrics.
    public init(
        request: HTTPRequest,
        startDate: Date,
        duration: Duration,
        attempts: Int,
        redirects: Int,
        bytesSent: Int64,
        bytesReceived: Int64,
        status: HTTPStatus?,
        error: (any Error)? = nil
    ) {
        self.request = request
        self.startDate = startDate
        self.duration = duration
        self.attempts = attempts
        self.redirects = redirects
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.status = status
        self.error = error
    }
}
