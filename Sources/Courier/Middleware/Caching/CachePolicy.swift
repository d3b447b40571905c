/// Whether and for how long a response may be stored and reused by the response cache.
///
/// Declared per route (``Route/cachePolicy``) or as the cache middleware's default.
///
/// ```swift
/// var cachePolicy: CachePolicy? { .timeToLive(.seconds(300)) }   // configuration rarely changes
/// var cachePolicy: CachePolicy? { .noStore }                     // always fresh
/// ```
public struct CachePolicy: Sendable, Hashable {
    /// How the cache decides freshness.
    public enum Freshness: Sendable, Hashable {
        /// Follow the response's `Cache-Control`, `ETag` and `Last-Modified`.
        case followHeaders
        /// Treat the response as fresh for this long, whatever its headers say.
        case timeToLive(Duration)
        /// Never store or reuse the response.
        case noStore
    }

    /// How freshness is decided.
    public var freshness: Freshness
    /// Whether responses to authenticated requests may be stored. `false` by default, so one
    /// user's data is never served to another.
    public var storesAuthenticatedResponses: Bool

    /// Creates a policy.
    public init(freshness: Freshness = .followHeaders, storesAuthenticatedResponses: Bool = false) {
        self.freshness = freshness
        self.storesAuthenticatedResponses = storesAuthenticatedResponses
    }

    /// Follow the response's headers; never store authenticated responses.
    public static let `default` = CachePolicy()

    /// Never store or reuse.
    public static let noStore = CachePolicy(freshness: .noStore)

    /// Fresh for `duration` whatever the headers say.
    public static func timeToLive(_ duration: Duration, storesAuthenticatedResponses: Bool = false) -> CachePolicy {
        CachePolicy(freshness: .timeToLive(duration), storesAuthenticatedResponses: storesAuthenticatedResponses)
    }
}
