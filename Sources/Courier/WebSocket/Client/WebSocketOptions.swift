/// How a ``WebSocket`` buffers, limits, closes and keeps its connection alive.
///
/// ```swift
/// let socket = try await client.webSocket(.socket("prices"), options: .init(pingInterval: .seconds(20)))
/// ```
public struct WebSocketOptions: Sendable, Hashable {
    /// The largest message accepted, in bytes (inflated size for a compressed one): a larger one
    /// fails the connection with close code 1009. 16 MiB by default.
    public var maximumMessageSize: Int
    /// How many received messages wait for the reader before Courier stops reading the connection:
    /// 8 by default (at least 1). A reader that falls behind stops the peer through TCP's flow
    /// control, never by growing memory; pings are not answered meanwhile either, so a socket must
    /// be read (its ``WebSocket/messages``) even when only its sends matter.
    ///
    /// The memory a socket's received messages may hold is about `maximumBufferedMessages` ×
    /// ``maximumMessageSize`` (plus the messages one 4 KiB piece of the connection completes, at
    /// most about 4 MiB once inflated): with compression a peer reaches it with little traffic
    /// (a 16 MiB message of zeros is 16 KB on the wire), so 128 MiB with the defaults. Lower
    /// either for a socket whose peer you do not trust, or for many sockets at once.
    public var maximumBufferedMessages: Int
    /// How long ``WebSocket/close(code:reason:)`` waits for the peer's close frame before ending
    /// the connection anyway: 5 seconds by default.
    public var closeTimeout: Duration
    /// How often to ping the peer when keepalive is on: every `pingInterval` after the last pong.
    /// `nil` (the default) for no keepalive.
    public var pingInterval: Duration?
    /// How long a keepalive ping waits for its pong: past it the peer is taken for dead and the
    /// socket ends with ``TransportFailure/timedOut``. 10 seconds by default.
    public var pongTimeout: Duration

    /// Creates options.
    public init(
        maximumMessageSize: Int = 16 << 20, maximumBufferedMessages: Int = 8, closeTimeout: Duration = .seconds(5),
        pingInterval: Duration? = nil, pongTimeout: Duration = .seconds(10)
    ) {
        self.maximumMessageSize = max(1, maximumMessageSize)
        self.maximumBufferedMessages = max(1, maximumBufferedMessages)
        self.closeTimeout = max(.zero, closeTimeout)
        self.pingInterval = pingInterval.map { max(.milliseconds(1), $0) }
        self.pongTimeout = max(.milliseconds(1), pongTimeout)
    }
}

/// How a WebSocket ended: the close code and reason.
///
/// After a close handshake it is the peer's close frame (1005, ``WebSocketCloseCode/noStatusReceived``,
/// when its frame had no code); 1006 (``WebSocketCloseCode/abnormalClosure``) when the connection
/// ended without one (a lost connection, a dead peer, a close that timed out); after a protocol
/// violation, the code Courier failed the connection with (1002, 1007 or 1009).
public struct WebSocketClose: Hashable, Sendable, CustomStringConvertible {
    /// The close code.
    public var code: WebSocketCloseCode
    /// The reason, possibly empty.
    public var reason: String

    /// Creates a close.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// The code, and the reason when there is one.
    public var description: String { reason.isEmpty ? "\(code)" : "\(code): \(reason)" }
}
