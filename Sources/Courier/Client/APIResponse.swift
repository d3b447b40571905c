import Foundation

/// A decoded value together with what produced it: the response, the request that was finally
/// sent, and the call's metrics.
public struct APIResponse<Value: Sendable>: Sendable {
    /// The decoded value.
    public let value: Value
    /// The response the value was decoded from.
    public let response: HTTPResponse
    /// The request as it last reached the transport, after every middleware's changes.
    public let request: HTTPRequest
    /// When the call started, how long it took (decoding included), how many attempts, redirects
    /// and bytes.
    public let metrics: RequestMetrics

    /// How many times the request reached the transport (more than one after a retry or a refresh,
    /// zero when a cache answered).
    public var attempts: Int { metrics.attempts }
    /// The time from the call to the decoded value.
    public var elapsed: Duration { metrics.duration }

    /// Creates a response value.
    public init(value: Value, response: HTTPResponse, request: HTTPRequest, metrics: RequestMetrics) {
        self.value = value
        self.response = response
        self.request = request
        self.metrics = metrics
    }
}
