/// How ``ResponseCacheMiddleware`` may store and reuse a response: `nil` (the middleware's own
/// policy) unless the route says otherwise (``Route/cachePolicy``).
public enum CachePolicyKey: RequestPolicyKey {
    /// The middleware's default.
    public static let defaultValue: CachePolicy? = nil
}

extension RequestPolicies {
    /// How the response cache may store and reuse this response, or `nil` for its default.
    public var cache: CachePolicy? {
        get { self[CachePolicyKey.self] }
        set { self[CachePolicyKey.self] = newValue }
    }

}
