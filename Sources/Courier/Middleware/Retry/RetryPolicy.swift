/// When and how often a failed request may be sent again, and how long to wait in between.
///
/// Declared per route (``Route/retryPolicy``) or as the retry middleware's default. Only
/// idempotent methods are retried, unless the request carries an `Idempotency-Key` or
/// ``retriesNonIdempotentRequests`` is set.
///
/// ```swift
/// var retryPolicy: RetryPolicy? { .never }                 // a payment: never resend
/// var retryPolicy: RetryPolicy? { RetryPolicy(maximumAttempts: 5) }
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Exponential backoff: `initial × multiplierⁿ`, capped at `maximum`, with optional full jitter
    /// (a uniformly random wait between zero and that value).
    public struct Backoff: Sendable, Hashable {
        /// The wait before the first retry (before jitter).
        public var initial: Duration
        /// How much each wait grows over the previous one.
        public var multiplier: Double
        /// The longest wait (before jitter).
        public var maximum: Duration
        /// Whether each wait is drawn uniformly between zero and its computed value.
        public var usesJitter: Bool

        /// Creates a backoff.
        public init(
            initial: Duration = .milliseconds(200),
            multiplier: Double = 2,
            maximum: Duration = .seconds(10),
            usesJitter: Bool = true
        ) {
            self.initial = initial
            self.multiplier = multiplier
            self.maximum = maximum
            self.usesJitter = usesJitter
        }
    }

    /// How many times the request may be sent in all, the first time included; 1 means no retry.
    public var maximumAttempts: Int
    /// How long to wait between attempts when the server does not say.
    public var backoff: Backoff
    /// The statuses worth retrying: 408, 429, 500, 502, 503 and 504 by default.
    public var retryableStatuses: Set<Int>
    /// The longest `Retry-After` that is honoured; a longer one fails at once instead of waiting.
    public var maximumRetryAfter: Duration
    /// Whether methods that are not idempotent (`POST`, `PATCH`) may be retried without an
    /// `Idempotency-Key`. `false` by default: a retried `POST` could act twice.
    public var retriesNonIdempotentRequests: Bool

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 3,
        backoff: Backoff = Backoff(),
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        maximumRetryAfter: Duration = .seconds(60),
        retriesNonIdempotentRequests: Bool = false
    ) {
        self.maximumAttempts = maximumAttempts
        self.backoff = backoff
        self.retryableStatuses = retryableStatuses
        self.maximumRetryAfter = maximumRetryAfter
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
    }

    /// Three attempts with jittered exponential backoff from 200 ms.
    public static let `default` = RetryPolicy()

    /// One attempt: never retry.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// Whether a request with this method and headers may be retried under this policy.
    public func allowsRetry(of request: HTTPRequest) -> Bool {
        maximumAttempts > 1
            && (request.method.isIdempotent || retriesNonIdempotentRequests
                || request.headers.contains(.idempotencyKey))
    }
}
