/// Whether ``AuthMiddleware`` authenticates a request: `true` unless the route says otherwise
/// (``Route/requiresAuthentication``).
public enum RequiresAuthenticationKey: RequestPolicyKey {
    /// Authenticated.
    public static let defaultValue = true
}

extension RequestPolicies {
    /// Whether the authentication middleware should authenticate this request.
    public var requiresAuthentication: Bool {
        get { self[RequiresAuthenticationKey.self] }
        set { self[RequiresAuthenticationKey.self] = newValue }
    }
}
