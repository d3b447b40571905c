/// Where the innermost step of a socket's chain leaves the channel of a `101`, for the call that
/// opened the socket to take once the chain returns (``CallContext/upgrade``).
///
/// A middleware may send the handshake more than once (a refresh after a `401`, a retry after a
/// lost connection); only the last `101`'s channel counts, and an earlier one is closed. A channel
/// never taken (the chain failed after the `101`) is closed by ``discard()``.
package final class WebSocketUpgradeSlot: Sendable {
    private let held = Locked<(any WebSocketChannel)?>(nil)

    package init() {}

    /// Keeps `channel`, closing one kept before.
    package func hold(_ channel: any WebSocketChannel) {
        let previous = held.withLock { held in
            defer { held = channel }
            return held
        }
        previous?.close()
    }

    /// The channel kept, handed over once.
    package func take() -> (any WebSocketChannel)? {
        held.withLock { held in
            defer { held = nil }
            return held
        }
    }

    /// Closes a channel nobody took.
    package func discard() { take()?.close() }
}
