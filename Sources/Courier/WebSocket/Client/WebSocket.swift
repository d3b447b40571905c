import Foundation

/// An open WebSocket: send text, binary and JSON messages, read the peer's as an `AsyncSequence`,
/// ping, and close with a code and a reason. Opened by ``APIClient/webSocket(_:options:)``.
///
/// ```swift
/// let socket = try await client.webSocket(.socket("chat", subprotocols: ["chat.v2"]))
/// try await socket.send(text: "hello")
/// for try await message in socket.messages {
///     if case .text(let text) = message { print(text) }
/// }
/// print(socket.closure ?? "open")   // 1000 (normal closure): bye
/// ```
///
/// **Reading.** ``messages`` is read by one loop at a time (a second iterator's `next()` throws
/// ``APIError/Kind/invalidRequest``); it ends with `nil` when the socket closes with a close
/// handshake (whoever started it, whatever the code: see ``closure``) and throws ``APIError``
/// when it ends otherwise: ``TransportFailure/connectionLost`` when the connection ended without a
/// close frame, ``TransportFailure/webSocketProtocolViolation`` when the peer broke RFC 6455 (the
/// message names the close code Courier sent), ``TransportFailure/timedOut`` when the peer did
/// not answer a keepalive ping or a close frame in time. Received messages wait in a small buffer
/// (``WebSocketOptions/maximumBufferedMessages``): when it is full Courier stops reading the
/// connection, so read the socket even when only its sends matter.
///
/// **Leaving.** Leaving the `for` loop, cancelling the reading task, or dropping the socket
/// closes it with 1001 (going away): the reader is gone, and the peer hears why. Call
/// ``close(code:reason:)`` to close with 1000 (normal closure) or a code of your own.
///
/// A `WebSocket` may be shared between tasks: one reads while others send; sends go out in the
/// order they were called, each returning once its bytes were handed to the connection.
public final class WebSocket: Sendable {
    /// The server's `101 Switching Protocols` answer to the handshake.
    public let response: HTTPResponse
    /// The handshake as finally sent, after the middlewares.
    public let request: HTTPRequest
    /// The subprotocol the server chose among the route's ``WebSocketRoute/subprotocols``; `nil`
    /// for none.
    public let subprotocol: String?
    /// Whether the server agreed to compress messages (permessage-deflate).
    public let isCompressed: Bool
    let engine: WebSocketEngine
    let encoder: JSONEncoder
    let decoder: JSONDecoder

    init(
        engine: WebSocketEngine, request: HTTPRequest, response: HTTPResponse,
        agreement: WebSocketHandshake.Agreement, encoder: JSONEncoder, decoder: JSONDecoder
    ) {
        self.engine = engine
        self.request = request
        self.response = response
        self.subprotocol = agreement.subprotocol
        self.isCompressed = agreement.compression != nil
        self.encoder = encoder
        self.decoder = decoder
    }

    deinit {
        engine.abandon()
    }

    /// Sends a message; returns once its bytes were handed to the connection.
    ///
    /// A peer that stops reading holds the call up (TCP's flow control): once 1 MiB of writes
    /// waits, a send waits before its message is even encoded. Cancelling the calling task ends
    /// the wait at once with `CancellationError`: a message still waiting is dropped, one already
    /// queued still goes out in its turn (its bytes may be compressed into the context of the
    /// messages after it, so it cannot be taken back). ``close(code:reason:)`` fails the sends
    /// still waiting at once and ends the connection after the close timeout whatever is queued.
    ///
    /// - Throws: ``APIError``: ``APIError/Kind/invalidRequest`` once the socket is closing or
    ///   closed, the error that ended it when it failed; or `CancellationError`.
    public func send(_ message: WebSocketMessage) async throws {
        try await engine.send(message)
    }

    /// Sends a text message.
    ///
    /// - Throws: ``APIError`` as `send(_:)` does.
    public func send(text: String) async throws {
        try await engine.send(.text(text))
    }

    /// Sends a binary message.
    ///
    /// - Throws: ``APIError`` as `send(_:)` does.
    public func send(_ data: Data) async throws {
        try await engine.send(.binary(data))
    }

    /// Sends `value` as JSON, encoded with the client's encoder, in a text message.
    ///
    /// - Throws: ``APIError/Kind/invalidRequest`` when `value` cannot be encoded; ``APIError``
    ///   as `send(_:)` does.
    public func send(json value: some Encodable) async throws {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw APIError(
                .invalidRequest, message: "encoding \(type(of: value)) for a WebSocket message failed: \(error)",
                request: request, underlyingError: error)
        }
        try await engine.send(.text(String(decoding: data, as: UTF8.self)))
    }

    /// Sends a ping and waits for the peer's pong.
    ///
    /// The pong arrives through the reading side, so the socket must be read meanwhile. While a
    /// ping of ours still waits to be written (a peer that does not read), a new call joins it
    /// rather than queueing another frame.
    ///
    /// - Returns: the round trip.
    /// - Throws: ``APIError`` when the socket is closing or ends before the pong, or
    ///   `CancellationError`.
    @discardableResult
    public func ping() async throws -> Duration {
        try await engine.ping()
    }

    /// Closes the socket: sends a close frame with `code` and `reason` (at most 123 bytes of UTF-8;
    /// longer is cut) and waits for the peer's, at most ``WebSocketOptions/closeTimeout``. Messages
    /// that arrive meanwhile still reach the reader while it keeps up; later ones are dropped.
    /// Closing a socket that is closing or over waits for, or returns, how it ended.
    ///
    /// - Returns: how the socket ended: the peer's close code and reason (see ``closure``).
    /// - Throws: ``APIError``: ``TransportFailure/timedOut`` when the peer's close frame did not
    ///   come in time (the connection is closed anyway), the error that ended the socket before
    ///   the handshake completed, ``APIError/Kind/invalidRequest`` for a code that may not be sent
    ///   (1004–1006, 1015, and anything outside 1000–4999 but the registered ones).
    @discardableResult
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws -> WebSocketClose {
        try await engine.close(code: code, reason: reason)
    }

    /// How the socket ended, once it has: the peer's close code and reason after a close handshake,
    /// 1006 (abnormal closure) without one, or the code Courier failed the connection with after a
    /// protocol violation. `nil` while the socket is open or closing.
    public var closure: WebSocketClose? {
        engine.ending?.close
    }

    /// Waits until the socket is over.
    ///
    /// - Returns: how it ended (``closure``).
    /// - Throws: the ``APIError`` that ended it, for an end without a close handshake.
    @discardableResult
    public func ended() async throws -> WebSocketClose {
        let ending = await engine.ended()
        if let error = ending.error { throw error }
        return ending.close
    }
}
