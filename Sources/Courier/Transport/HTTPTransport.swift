/// Performs one HTTP exchange: sends a request, returns the complete response.
///
/// A transport never retries, authenticates, validates the status or decodes; middlewares and the
/// client do that. It follows redirects only under its own configured, origin-safe policy. It
/// throws ``APIError`` with kind ``APIError/Kind/transport(_:)`` (other errors are wrapped as
/// ``TransportFailure/other``), and `CancellationError` when the calling task is cancelled.
///
/// ``CurlTransport`` is the default on Linux and ``URLSessionTransport`` on Apple platforms (see
/// ``APIClient/defaultTransport()``); `CourierTesting.StubTransport` answers from rules, for tests.
public protocol HTTPTransport: Sendable {
    /// Sends the request and returns the response, whatever its status.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
