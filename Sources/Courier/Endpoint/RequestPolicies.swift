/// What a route declares for the middlewares, carried on every ``HTTPRequest`` it produces.
///
/// A route sets these through its own requirements (``Route/requiresAuthentication``,
/// ``Route/retryPolicy``, ``Route/cachePolicy``); a middleware reads them from
/// ``HTTPRequest/policies``. `nil` means "the middleware's own default".
public struct RequestPolicies: Sendable, Hashable {
    /// Whether the authentication middleware should authenticate this request.
    public var requiresAuthentication: Bool
    /// How the retry middleware may retry this request, or `nil` for its default.
    public var retry: RetryPolicy?
    /// How the response cache may store and reuse this response, or `nil` for its default.
    public var cache: CachePolicy?

    /// Creates policies.
    public init(requiresAuthentication: Bool = true, retry: RetryPolicy? = nil, cache: CachePolicy? = nil) {
        self.requiresAuthentication = requiresAuthentication
        self.retry = retry
        self.cache = cache
    }
}
