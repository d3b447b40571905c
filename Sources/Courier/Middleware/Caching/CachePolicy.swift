/// Whether and for how long a response may be stored and reused by the response cache.
///
/// Declared per route (``Route/cachePolicy``) or as the cache middleware's default.
///
/// ```swift
/// var cachePolicy: CachePolicy? { .timeToLive(.seconds(300)) }   // configuration rarely changes
/// var cachePolicy: CachePolicy? { .noStore }                     // always fresh
/// var cachePolicy: CachePolicy? { .noCache }                     // always ask the server (304s are cheap)
/// var cachePolicy: CachePolicy? { .onlyIfCached }                // offline: a miss is a 504, no network
/// ```
public struct CachePolicy: Sendable, Hashable {
    /// How the cache decides freshness.
    public enum Freshness: Sendable, Hashable {
        /// Follow the response's `Cache-Control`, `Expires`, `Age`, `Date`, `ETag` and `Last-Modified`.
        case followHeaders
        /// Treat the response as fresh for this long after it is received, whatever its headers say.
        case timeToLive(Duration)
        /// Never store or reuse the response.
        case noStore
    }

    /// How one request uses the cache: the modes of the Fetch standard's `RequestInit.cache`, so a
    /// caller never writes `Cache-Control` by hand to get them.
    public enum Mode: Sendable, Hashable {
        /// Use a fresh stored response, revalidate a stale one, store what may be stored.
        case `default`
        /// Bypass the cache: neither use nor update it.
        case noStore
        /// Go to the network without a conditional request, and store the response.
        case reload
        /// Always revalidate a stored response with the server (a `304` reuses its body), and
        /// store the response.
        case noCache
        /// Use a stored response however stale; go to the network only on a miss.
        case forceCache
        /// Use a stored response however stale; on a miss answer `504 Gateway Timeout` without
        /// touching the network.
        case onlyIfCached
    }

    /// Freshness for a response with `Last-Modified` but no explicit lifetime (RFC 9111 §4.2.2):
    /// a fraction of the time since it was last modified, at most `limit`.
    public struct HeuristicFreshness: Sendable, Hashable {
        /// The fraction of the time since `Last-Modified`; browsers use 10%.
        public var fraction: Double
        /// The longest lifetime a heuristic gives.
        public var limit: Duration

        /// Creates a heuristic.
        public init(fraction: Double = 0.1, limit: Duration = .seconds(24 * 3600)) {
            self.fraction = max(0, fraction)
            self.limit = limit
        }

        /// 10% of the time since `Last-Modified`, at most one day.
        public static let standard = HeuristicFreshness()
    }

    /// How freshness is decided.
    public var freshness: Freshness
    /// Whether responses to authenticated requests may be stored. `false` by default, so one
    /// user's data is never served to another.
    public var storesAuthenticatedResponses: Bool
    /// How this request uses the cache; ``Mode/default`` by default.
    public var mode: Mode
    /// The heuristic for responses without an explicit lifetime, or `nil` to store them only
    /// for revalidation. ``HeuristicFreshness/standard`` by default.
    public var heuristicFreshness: HeuristicFreshness?

    /// Creates a policy.
    public init(
        freshness: Freshness = .followHeaders, storesAuthenticatedResponses: Bool = false, mode: Mode = .default,
        heuristicFreshness: HeuristicFreshness? = .standard
    ) {
        self.freshness = freshness
        self.storesAuthenticatedResponses = storesAuthenticatedResponses
        self.mode = mode
        self.heuristicFreshness = heuristicFreshness
    }

    /// Follow the response's headers; never store authenticated responses.
    public static let `default` = CachePolicy()

    /// Never store or reuse.
    public static let noStore = CachePolicy(freshness: .noStore)

    /// Go to the network without revalidating, and store the response (``Mode/reload``).
    public static let reload = CachePolicy(mode: .reload)

    /// Always revalidate a stored response (``Mode/noCache``).
    public static let noCache = CachePolicy(mode: .noCache)

    /// Use a stored response however stale; the network only on a miss (``Mode/forceCache``).
    public static let forceCache = CachePolicy(mode: .forceCache)

    /// Use a stored response however stale; a miss is a `504` without a network call
    /// (``Mode/onlyIfCached``).
    public static let onlyIfCached = CachePolicy(mode: .onlyIfCached)

    /// Fresh for `duration` whatever the headers say.
    public static func timeToLive(_ duration: Duration, storesAuthenticatedResponses: Bool = false) -> CachePolicy {
        CachePolicy(freshness: .timeToLive(duration), storesAuthenticatedResponses: storesAuthenticatedResponses)
    }
}
