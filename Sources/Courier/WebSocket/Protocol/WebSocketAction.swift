/// What a ``WebSocketConnection`` asks its transport to do, in order.
package enum WebSocketAction: Equatable {
    /// Write these bytes, after every write asked for before.
    case write([UInt8])
    /// Hand this message to the reader.
    case deliver(WebSocketMessage)
    /// A pong arrived with this payload (for a keepalive waiting for one; unsolicited ones too).
    case receivedPong([UInt8])
    /// Call ``WebSocketConnection/timerFired(_:)`` with this timer after the delay, unless a
    /// ``cancelTimer(_:)`` comes first.
    case startTimer(WebSocketTimer, after: Duration)
    /// Forget this timer.
    case cancelTimer(WebSocketTimer)
    /// Close the connection (TLS close_notify, then TCP) once the writes asked for before are out.
    case closeConnection
    /// The connection is over, and how: always the last action. Later events do nothing.
    case finish(WebSocketEnding)
}

/// A timer a connection asks for: it never sleeps itself.
package enum WebSocketTimer: Hashable, Sendable {
    /// How long to wait for the peer's close after sending ours.
    case closeTimeout
}

/// How a connection ended.
package enum WebSocketEnding: Equatable, Sendable {
    /// The close handshake completed; the peer's close frame (its code is `nil` when it sent none:
    /// report 1005). `initiatedByPeer` tells who closed first.
    case closed(WebSocketCloseFrame, initiatedByPeer: Bool)
    /// Courier failed the connection because the peer broke a rule; the close frame sent carried
    /// the violation's code and reason.
    case failed(WebSocketProtocolViolation)
    /// Courier sent a close frame and the peer's did not come back within the timeout.
    case closeTimedOut
    /// The connection ended before the close handshake did (report 1006, abnormal closure).
    case connectionLost
}
