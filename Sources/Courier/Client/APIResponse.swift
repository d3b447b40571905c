import Foundation

/// A decoded value together with what produced it: the response, the request that was finally
/// sent, and how long the call took.
public struct APIResponse<Value: Sendable>: Sendable {
    /// The decoded value.
    public let value: Value
    /// The response the value was decoded from.
    public let response: HTTPResponse
    /// The request as it last reached the transport, after every middleware's changes.
    public let request: HTTPRequest
    /// How many times the request reached the transport (more than one after a retry or a refresh).
    public let attempts: Int
    /// The time from the call to the decoded value.
    public let elapsed: Duration

    /// Creates a response value.
    public init(value: Value, response: HTTPResponse, request: HTTPRequest, attempts: Int, elapsed: Duration) {
        self.value = value
        self.response = response
        self.request = request
        self.attempts = attempts
        self.elapsed = elapsed
    }
}
