/// The bytes of one upgraded connection after the server's `101` head: what a transport hands the
/// WebSocket layer once the opening handshake succeeded. The WebSocket layer frames, masks,
/// validates and closes (``WebSocketConnection``); the channel only moves bytes.
///
/// Rules every channel keeps:
/// - ``read()`` returns the bytes the server sent after its response head first (a server may
///   send its first frame in the same packet as its `101`), then what arrives, in order; `nil`
///   once the peer closed its side. One read at a time.
/// - Flow control: the transport reads from the socket only while a ``read()`` waits (plus at
///   most one buffer it already holds). A caller that stops reading stops the socket, and the
///   peer's sends back up in TCP, never in memory.
/// - ``write(_:)`` returns once all the bytes were handed to the connection (TLS included);
///   writes go out in call order, one at a time.
/// - ``close()`` ends the connection (TLS close_notify where there is one, then TCP), fails a
///   waiting read or write with `CancellationError` or an ``APIError``, and may be called more
///   than once, from any thread.
/// - Cancelling the task of a waiting ``read()`` or ``write(_:)`` closes the channel.
package protocol WebSocketChannel: AnyObject, Sendable {
    /// The next bytes from the connection; `nil` once the peer closed it.
    ///
    /// - Throws: ``APIError`` (``TransportFailure/connectionLost`` for a reset,
    ///   ``TransportFailure/tls`` for a broken TLS record), or `CancellationError`.
    func read() async throws -> [UInt8]?

    /// Writes all of `bytes`.
    ///
    /// - Throws: ``APIError`` (``TransportFailure/connectionLost`` when the peer is gone), or
    ///   `CancellationError`.
    func write(_ bytes: [UInt8]) async throws

    /// Ends the connection; nothing is read or written afterwards.
    func close()
}

/// A transport that can open a WebSocket: send the opening handshake on a connection of its own
/// and, when the server answers `101`, hand over that connection's bytes.
///
/// ``APIClient`` calls it from the innermost step of the chain when the call opens a socket, so
/// the handshake passes every middleware like any other request (auth and its refresh on a `401`,
/// cookies, logging with secrets redacted, metrics). A transport that does not adopt it fails a
/// socket with ``TransportFailure/unsupported``.
package protocol WebSocketOpeningTransport: HTTPTransport {
    /// Sends `request` (a `GET` with the handshake's headers, already set) on a new connection that
    /// is never pooled nor shared, and reads the response head.
    ///
    /// - Returns: the response and, for a `101`, the connection's channel (the response then has
    ///   no body). For any other status, the response with its body (bounded as any response's)
    ///   and no channel; the connection is closed or released.
    /// - Throws: ``APIError`` as ``HTTPTransport/send(_:)`` does (cannot connect, TLS, proxy,
    ///   timeout: the request's ``HTTPRequest/timeout`` bounds the time until the head arrived).
    func openWebSocket(_ request: HTTPRequest) async throws -> (
        response: HTTPResponse, channel: (any WebSocketChannel)?
    )
}
