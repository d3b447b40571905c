/// Why an HTTP exchange failed before a complete response arrived.
///
/// An open set of named causes, so transports can add their own without breaking `switch`es.
/// Compare with `==`, or match in a pattern: `case .transport(.timedOut)`.
public struct TransportFailure: Hashable, Sendable, CustomStringConvertible {
    /// A short name of the cause, e.g. `timedOut`.
    public let name: String

    /// Creates a cause; prefer the predefined ones.
    public init(_ name: String) {
        self.name = name
    }

    /// The cause's name.
    public var description: String { name }

    /// No connection could be made: refused, unreachable, no network, or the host name did not resolve.
    public static let cannotConnect = TransportFailure("cannotConnect")
    /// No byte arrived for longer than the idle timeout. Worth retrying: the server may have stalled once.
    public static let timedOut = TransportFailure("timedOut")
    /// The request's whole-exchange deadline (``HTTPRequest/timeout``) passed before the response was
    /// complete. Not worth retrying: there is no time left.
    public static let deadlineExceeded = TransportFailure("deadlineExceeded")
    /// The connection closed or reset before the response was complete.
    public static let connectionLost = TransportFailure("connectionLost")
    /// The HTTP proxy answered the tunnel's `CONNECT` with `407 Proxy Authentication Required`: it
    /// wants credentials, or refused the ones in the proxy URL. Nothing reached the origin. Not worth
    /// retrying: the same credentials get the same answer. The error's ``APIError/status`` is the
    /// proxy's (407), never the origin's, and no description shows the proxy's password.
    ///
    /// A plain-HTTP request through a proxy needs no tunnel: the proxy's 407 is then an ordinary
    /// response, and the client reports it as ``APIError/Kind/unacceptableStatus(_:)`` with status
    /// 407, which is not retried by default either.
    public static let proxyAuthenticationRequired = TransportFailure("proxyAuthenticationRequired")
    /// The server redirected more times than the transport's limit allows.
    public static let tooManyRedirects = TransportFailure("tooManyRedirects")
    /// A redirect would have left HTTPS for plain HTTP.
    public static let insecureRedirect = TransportFailure("insecureRedirect")
    /// A redirect the transport refuses to follow: no or a bad `Location`, a scheme other than HTTP(S),
    /// or a request body that would be sent on to another origin.
    public static let invalidRedirect = TransportFailure("invalidRedirect")
    /// TLS failed: handshake, certificate or trust.
    public static let tls = TransportFailure("tls")
    /// The client certificate (``CurlTransport/TLSOptions/clientCertificate``) did not get the
    /// connection through: it could not be used (a file missing or unreadable, a key that does not
    /// match the certificate, a wrong passphrase), or the server refused it (an unknown CA, an
    /// expired certificate), or the server wanted one and got none. The message says which and
    /// what to check. Not worth retrying. With TLS 1.3 the server's refusal arrives after the
    /// handshake, on the first read; it is reported the same way, never as a lost connection.
    public static let clientCertificateRejected = TransportFailure("clientCertificateRejected")
    /// The server's reply was not valid HTTP (garbage status line, bad framing or encoding).
    public static let badResponse = TransportFailure("badResponse")
    /// The response body was larger than the transport's limit.
    public static let responseTooLarge = TransportFailure("responseTooLarge")
    /// The request's body file changed size while it was being sent. The transport stops before
    /// the body's last byte, so the server never receives a whole request. Not worth retrying
    /// until whoever writes the file has finished.
    public static let bodyFileChanged = TransportFailure("bodyFileChanged")
    /// A stream body (``HTTPBodyStream``) yielded more or fewer bytes than the length it declared.
    /// The transport stops before the body's last byte, so the server never receives a whole
    /// request nor a byte past the announced length. Not worth retrying: the stream is spent.
    public static let bodyLengthMismatch = TransportFailure("bodyLengthMismatch")
    /// The server's answer to a WebSocket opening handshake was not one RFC 6455 accepts: not a
    /// `101`, a wrong `Upgrade`, `Connection` or `Sec-WebSocket-Accept`, or a subprotocol or
    /// extension the client did not offer. The error's message says which; not worth retrying.
    public static let webSocketHandshakeFailed = TransportFailure("webSocketHandshakeFailed")
    /// The WebSocket peer broke RFC 6455 or RFC 7692 (a masked server frame, a reserved bit, text
    /// that is not UTF-8, a message over the size limit…): Courier failed the connection with the
    /// close code the message names (1002, 1007 or 1009).
    public static let webSocketProtocolViolation = TransportFailure("webSocketProtocolViolation")
    /// The transport cannot do what the call asks on this platform (a WebSocket on a transport or a
    /// libcurl without them); the message names what. Not worth retrying.
    public static let unsupported = TransportFailure("unsupported")
    /// Anything else the transport reported.
    public static let other = TransportFailure("other")
}
