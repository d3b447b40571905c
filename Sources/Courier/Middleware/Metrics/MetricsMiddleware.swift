import Foundation

/// Hands the ``RequestMetrics`` of every call, successful or not, to an observer.
///
/// ```swift
/// let metrics = MetricsMiddleware { metrics in
///     statsd.timing("api.\(metrics.status?.code ?? 0)", metrics.duration)
/// }
/// let client = APIClient(baseURL: api, middlewares: [metrics, RetryMiddleware(), …])
/// ```
///
/// Put it first, so its numbers cover retries, refreshes and cache hits below it. The observer is
/// called on the calling task after the call; keep it quick.
public struct MetricsMiddleware: Middleware {
    private let observer: @Sendable (RequestMetrics) -> Void

    /// Creates a middleware that reports to `observer`.
    public init(observer: @escaping @Sendable (RequestMetrics) -> Void) {
        self.observer = observer
    }

    /// Passes the request on, then reports how the call went.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        // Outside APIClient there is no record of the call; keep one of this middleware's own.
        let record = CallContext.current.record ?? ExchangeRecord(request)
        let isOwnRecord = CallContext.current.record == nil
        do {
            let response = try await next(request)
            if isOwnRecord {
                record.willSend(request)
                record.didReceive(response)
            }
            observer(record.metrics(status: response.status))
            return response
        } catch {
            observer(record.metrics(status: nil, error: error))
            throw error
        }
    }
}
