/// Why the server's answer to the opening handshake is refused (RFC 6455 §4.1: the client fails
/// the connection, sending nothing more).
package struct WebSocketHandshakeFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong with the answer, in a few words.
    package let reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var description: String { reason }

    /// The error the client throws for it, with the server's answer attached.
    package func apiError(request: HTTPRequest? = nil, response: HTTPResponse? = nil) -> APIError {
        APIError(
            .transport(.webSocketHandshakeFailed), message: "the WebSocket handshake failed: \(reason)",
            request: request, response: response, underlyingError: self)
    }
}
