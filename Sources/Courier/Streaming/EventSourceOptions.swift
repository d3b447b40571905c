/// How an ``EventSource`` reconnects.
///
/// Two waits, by how the last connection went:
/// - after a connection that brought events and then ended or dropped (the normal life of an event
///   stream): the server's `retry`, else ``defaultRetry``, kept between ``minimumRetry`` and
///   ``maximumRetry``;
/// - after a connection that failed (no connection, a retryable status, or no event before it
///   ended): a backoff of its own that the server's `retry` cannot shorten: ``initialBackoff``,
///   doubling with each failure in a row, drawn between half and all of that (jitter), capped at
///   ``maximumRetry``, and never shorter than the wait above or the failure's `Retry-After`.
///
/// By default a source never gives up on failures that reconnecting may mend, as browsers do, but
/// never reconnects in a tight loop either: against a server that answers `503` to everything it
/// connects at most 4 times in its first 10 seconds, then ever more rarely, down to once every 30 to
/// 60 seconds. Set ``maximumConsecutiveFailures`` to give up instead.
public struct EventSourceOptions: Sendable, Hashable {
    /// The wait before reconnecting until the server sets one with `retry`: 3 seconds by default.
    public var defaultRetry: Duration
    /// The shortest wait between two connections, whatever the server's `retry` says (a `retry: 0`
    /// would otherwise reconnect in a tight loop): 500 milliseconds by default.
    public var minimumRetry: Duration
    /// The longest wait between two connections, whatever the server's `retry`, `Retry-After` or
    /// the backoff say: a minute by default.
    public var maximumRetry: Duration
    /// The wait after the first connection in a row that failed: 1 second by default (at least
    /// 1 millisecond). It doubles with each further failure, with jitter, up to ``maximumRetry``.
    public var initialBackoff: Duration
    /// How many connections in a row may fail (no connection, a retryable status, or a connection
    /// that ended before its first event) before the source gives up with the last error; `nil`
    /// (the default) for no limit.
    public var maximumConsecutiveFailures: Int?
    /// The statuses after which the source reconnects; any other status outside `200..<300` ends it
    /// with ``APIError/Kind/unacceptableStatus(_:)``. `408, 429, 500, 502, 503, 504` by default.
    public var retryableStatuses: Set<Int>
    /// The most bytes of one line or one event's data: 8 MiB by default.
    public var maximumEventSize: Int
    /// How each connection buffers.
    public var stream: StreamOptions

    /// Creates options.
    public init(
        defaultRetry: Duration = .seconds(3),
        minimumRetry: Duration = .milliseconds(500),
        maximumRetry: Duration = .seconds(60),
        initialBackoff: Duration = .seconds(1),
        maximumConsecutiveFailures: Int? = nil,
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        maximumEventSize: Int = 8 << 20,
        stream: StreamOptions = StreamOptions()
    ) {
        self.minimumRetry = max(.zero, minimumRetry)
        self.maximumRetry = max(self.minimumRetry, maximumRetry)
        self.defaultRetry = max(.zero, defaultRetry)
        self.initialBackoff = max(.milliseconds(1), initialBackoff)
        self.maximumConsecutiveFailures = maximumConsecutiveFailures.map { max(0, $0) }
        self.retryableStatuses = retryableStatuses
        self.maximumEventSize = maximumEventSize
        self.stream = stream
    }

    /// The wait before the next connection.
    ///
    /// - Parameters:
    ///   - failures: The connections in a row that failed, the last one included; 0 after one that
    ///     brought events.
    ///   - serverRetry: The reconnection time the server asked for with `retry`, if it did.
    ///   - retryAfter: The last failure's `Retry-After`, if it had one.
    ///   - jitter: Where to draw the backoff, from 0 (half of it) to 1 (all of it).
    func wait(afterFailures failures: Int, serverRetry: Duration?, retryAfter: Duration?, jitter: Double) -> Duration {
        let retry = min(max(serverRetry ?? defaultRetry, minimumRetry), maximumRetry)
        guard failures > 0 else { return retry }
        // Doubling stops at the cap; the exponent is bounded so the multiplication cannot overflow.
        var backoff = initialBackoff
        for _ in 1..<min(failures, 64) where backoff < maximumRetry { backoff *= 2 }
        backoff = min(backoff, maximumRetry) * (0.5 + 0.5 * min(max(jitter, 0), 1))
        return min(max(backoff, retry, retryAfter ?? .zero), maximumRetry)
    }
}
