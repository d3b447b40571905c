/// A rule of RFC 6455 or RFC 7692 the peer broke: the connection fails, and the close frame Courier
/// sends carries ``closeCode`` and ``reason`` (RFC 6455 §7.1.7, "Fail the WebSocket Connection").
package struct WebSocketProtocolViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// The code of the close frame sent to the peer: 1002 (protocol error), 1007 (invalid payload
    /// data) or 1009 (message too big).
    package let closeCode: WebSocketCloseCode
    /// What the peer did, in a few words (it goes into the close frame: at most 123 bytes).
    package let reason: String

    package init(_ closeCode: WebSocketCloseCode, _ reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    package static func protocolError(_ reason: String) -> Self { Self(.protocolError, reason) }
    package static func invalidPayload(_ reason: String) -> Self { Self(.invalidPayloadData, reason) }
    package static func tooBig(_ reason: String) -> Self { Self(.messageTooBig, reason) }

    package var description: String { "\(reason) (closed with \(closeCode))" }

    /// The error the client throws for it.
    package var apiError: APIError {
        APIError(
            .transport(.webSocketProtocolViolation),
            message:
                "the WebSocket peer broke the protocol: \(reason); Courier closed the connection with \(closeCode)",
            underlyingError: self)
    }
}

extension WebSocketProtocolViolation {
    /// Runs `body` through an API that rethrows untyped errors (`withUnsafeBytes`), when the only
    /// error `body` throws is a violation: the typed error comes back out.
    package static func rethrowing<Result>(_ body: () throws -> Result) throws(WebSocketProtocolViolation) -> Result {
        do {
            return try body()
        } catch let violation as WebSocketProtocolViolation {
            throw violation
        } catch {
            preconditionFailure("only violations are thrown here, not \(error)")
        }
    }
}
