/// A kind of value that routes declare and a middleware reads: the middleware defines the key,
/// with the value a route gets when it declares none.
///
/// ```swift
/// enum TenantKey: RequestPolicyKey {
///     static let defaultValue: String? = nil
/// }
///
/// struct TenantMiddleware: Middleware {
///     func intercept(_ request: HTTPRequest, next: …) async throws -> HTTPResponse {
///         var request = request
///         if let tenant = request.policies[TenantKey.self] { request.headers["X-Tenant"] = tenant }
///         return try await next(request)
///     }
/// }
///
/// struct Invoices: Route {
///     var path: Path { "invoices" }
///     var policies: RequestPolicies { RequestPolicies().setting(TenantKey.self, to: "acme") }
/// }
/// ```
///
/// Courier's own middlewares read their policies the same way (``RequiresAuthenticationKey``,
/// ``RetryPolicyKey``, ``CachePolicyKey``), with properties for the everyday spelling
/// (``Route/retryPolicy``, ``RequestPolicies/retry``).
public protocol RequestPolicyKey {
    /// The type of the value.
    associatedtype Value: Sendable & Hashable
    /// The value of a route that declares none.
    static var defaultValue: Value { get }
}

/// The policies a route declared, carried on every ``HTTPRequest`` it produces for the middlewares
/// to read: a value per ``RequestPolicyKey``, the key's default when none was set.
public struct RequestPolicies: Sendable, Hashable {
    /// A value stored under a key.
    ///
    /// `@unchecked Sendable`: only a key's `Value`, which is `Sendable`, is ever stored (the
    /// subscript is the one way in); `AnyHashable` just cannot say so.
    private struct Entry: Hashable, @unchecked Sendable {
        let value: AnyHashable
    }

    private var values: [ObjectIdentifier: Entry] = [:]

    /// No policy set: every key has its default.
    public init() {}

    /// The value for `key`, or its default. Setting a key to its default is the same as never
    /// setting it: such policies compare equal.
    public subscript<Key: RequestPolicyKey>(_ key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)].flatMap { $0.value.base as? Key.Value } ?? Key.defaultValue }
        set {
            // A key set to its default is the same as a key never set (for equality, and no storage).
            if newValue == Key.defaultValue {
                values[ObjectIdentifier(key)] = nil
            } else {
                values[ObjectIdentifier(key)] = Entry(value: AnyHashable(newValue))
            }
        }
    }

    /// The same policies with `key` set to `value`.
    public func setting<Key: RequestPolicyKey>(_ key: Key.Type, to value: Key.Value) -> RequestPolicies {
        var copy = self
        copy[key] = value
        return copy
    }
}
