/// How ``RetryMiddleware`` may retry a request: `nil` (the middleware's own policy) unless the route
/// says otherwise (``Route/retryPolicy``).
public enum RetryPolicyKey: RequestPolicyKey {
    /// The middleware's default.
    public static let defaultValue: RetryPolicy? = nil
}

extension RequestPolicies {
    /// How the retry middleware may retry this request, or `nil` for its default.
    public var retry: RetryPolicy? {
        get { self[RetryPolicyKey.self] }
        set { self[RetryPolicyKey.self] = newValue }
    }
}
