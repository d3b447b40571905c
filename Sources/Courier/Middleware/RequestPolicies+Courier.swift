extension RequestPolicies {
    /// Policies for Courier's own middlewares: authentication, retry and response cache.
    public init(requiresAuthentication: Bool = true, retry: RetryPolicy? = nil, cache: CachePolicy? = nil) {
        self.init()
        self.requiresAuthentication = requiresAuthentication
        self.retry = retry
        self.cache = cache
    }
}
