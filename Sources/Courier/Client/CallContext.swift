import Foundation

/// Everything one call carries down the chain besides its request, in one task-local value: which
/// client's chain it is in, the record of what it sent and received, where its body goes when it
/// streams, the meter of its upload, and the hop observer a middleware set for its redirects.
///
/// ``APIClient`` sets a fresh context at the start of every call: the per-call fields come from
/// that call alone and nothing of the caller's call is inherited but the client scope (so a call
/// a middleware makes from inside its client's chain, a token refresh say, is still known as one).
/// Work that serves several calls (``SharedWork``: a token refresh, a deduplicated exchange, the
/// image loader's downloads) starts from ``shared``, without the call's body consumer and upload
/// meter, so a refresh started by a stream never streams into it; background work no call waits
/// for starts from ``background``.
///
/// The transports read it (``consumer``, ``uploadMeter``), the redirect loop reads
/// ``hopObserver``, and Courier's middlewares read ``record`` and ``scope``; a middleware written
/// outside the package sees the same facts on ``HTTPRequest`` and ``HTTPResponse``
/// (``HTTPRequest/streamsResponse``, ``HTTPRequest/mayBeSentAgain``,
/// ``HTTPResponse/streamedBodyBytes``).
package struct CallContext: Sendable {
    /// The client whose chain the call is passing through.
    package var scope: ClientScope?
    /// What the call sent and got back, attempt by attempt.
    package var record: ExchangeRecord?
    /// Where the final response's body goes as it arrives, when the call streams it.
    package var consumer: (any ResponseBodyConsumer)?
    /// Counts the request body's bytes as the transport sends them, when the caller watches them.
    package var uploadMeter: UploadMeter?
    /// Sees every hop the redirect loop follows, when a middleware set one around its `next`.
    package var hopObserver: (any RedirectHopObserver)?
    /// Takes the connection of a `101` when the call opens a WebSocket: the innermost step then
    /// asks the transport to open a socket instead of sending a request.
    package var upgrade: WebSocketUpgradeSlot?

    package init(
        scope: ClientScope? = nil, record: ExchangeRecord? = nil, consumer: (any ResponseBodyConsumer)? = nil,
        uploadMeter: UploadMeter? = nil, hopObserver: (any RedirectHopObserver)? = nil,
        upgrade: WebSocketUpgradeSlot? = nil
    ) {
        self.scope = scope
        self.record = record
        self.consumer = consumer
        self.uploadMeter = uploadMeter
        self.hopObserver = hopObserver
        self.upgrade = upgrade
    }

    /// The context of the call the current task is making; empty outside any call.
    @TaskLocal package static var current = CallContext()

    /// The context for work shared with other calls or started on their behalf (``SharedWork``: a
    /// deduplicated exchange, a token refresh): the client scope, the record (a deduplicated
    /// exchange is the starting call's own, in its metrics and log) and the hop observer (a cookie
    /// jar before deduplication stores each hop's cookies); never the call's body consumer,
    /// upload meter or WebSocket slot, which only the call's own exchange may feed.
    package var shared: CallContext { CallContext(scope: scope, record: record, hopObserver: hopObserver) }

    /// The context for background work no call waits for (a stale-while-revalidate refresh): the
    /// client scope alone, so it counts in no call's metrics.
    package var background: CallContext { CallContext(scope: scope) }
}

/// What a caller of ``APIClient`` asks of one call besides its route: where the body goes as it
/// arrives, and who watches the request body go out.
package struct CallOptions: Sendable {
    /// Takes the final response's body piece by piece (a download's file, the image loader).
    package var consumer: (any ResponseBodyConsumer)?
    /// Counts the request body's bytes (``APIClient/upload(_:)``).
    package var uploadMeter: UploadMeter?
    /// Takes the connection when the call opens a WebSocket.
    package var upgrade: WebSocketUpgradeSlot?

    package init(
        consumer: (any ResponseBodyConsumer)? = nil, uploadMeter: UploadMeter? = nil,
        upgrade: WebSocketUpgradeSlot? = nil
    ) {
        self.consumer = consumer
        self.uploadMeter = uploadMeter
        self.upgrade = upgrade
    }
}
