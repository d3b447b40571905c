import Foundation

/// Everything one call carries down the chain besides its request, in one task-local value: which
/// client's chain it is in, the record of what it sent and received, where its body goes when it
/// streams, the meter of its upload, and the hop observer a middleware set for its redirects.
///
/// ``APIClient`` sets a fresh context at the start of every call: the per-call fields come from
/// that call alone and nothing of the caller's call is inherited but the client scope (so a call
/// a middleware makes from inside its client's chain, a token refresh say, is still known as one).
/// Work that outlives or serves several calls (``SharedWork``: a token refresh, a deduplicated
/// exchange, the image loader's downloads) starts from ``shared``, with the per-call fields
/// cleared, so a refresh started by a stream never streams into it.
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

    package init(
        scope: ClientScope? = nil, record: ExchangeRecord? = nil, consumer: (any ResponseBodyConsumer)? = nil,
        uploadMeter: UploadMeter? = nil, hopObserver: (any RedirectHopObserver)? = nil
    ) {
        self.scope = scope
        self.record = record
        self.consumer = consumer
        self.uploadMeter = uploadMeter
        self.hopObserver = hopObserver
    }

    /// The context of the call the current task is making; empty outside any call.
    @TaskLocal package static var current = CallContext()

    /// The context for work started on behalf of this call but not part of it: the client scope
    /// alone.
    package var shared: CallContext { CallContext(scope: scope) }
}

/// What a caller of ``APIClient`` asks of one call besides its route: where the body goes as it
/// arrives, and who watches the request body go out.
package struct CallOptions: Sendable {
    /// Takes the final response's body piece by piece (a download's file, the image loader).
    package var consumer: (any ResponseBodyConsumer)?
    /// Counts the request body's bytes (``APIClient/upload(_:)``).
    package var uploadMeter: UploadMeter?

    package init(consumer: (any ResponseBodyConsumer)? = nil, uploadMeter: UploadMeter? = nil) {
        self.consumer = consumer
        self.uploadMeter = uploadMeter
    }
}
