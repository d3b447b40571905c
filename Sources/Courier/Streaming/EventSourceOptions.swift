/// How an ``EventSource`` reconnects.
public struct EventSourceOptions: Sendable, Hashable {
    /// The wait before reconnecting until the server sets one with `retry`: 3 seconds by default.
    public var defaultRetry: Duration
    /// The longest wait between two connections, whatever the server's `retry`, `Retry-After` or
    /// the backoff say: a minute by default.
    public var maximumRetry: Duration
    /// How many connections in a row may fail (no connection, a retryable status, or a connection
    /// that ended before its first event) before the source gives up with the last error; `nil`
    /// (the default) for no limit. Each failure doubles the wait, with jitter, up to ``maximumRetry``.
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
        maximumRetry: Duration = .seconds(60),
        maximumConsecutiveFailures: Int? = nil,
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        maximumEventSize: Int = 8 << 20,
        stream: StreamOptions = StreamOptions()
    ) {
        self.defaultRetry = max(.zero, defaultRetry)
        self.maximumRetry = max(.zero, maximumRetry)
        self.maximumConsecutiveFailures = maximumConsecutiveFailures.map { max(0, $0) }
        self.retryableStatuses = retryableStatuses
        self.maximumEventSize = maximumEventSize
        self.stream = stream
    }
}
