import Foundation

/// A private HTTP cache (RFC 9111, with RFC 5861's `stale-while-revalidate` and `stale-if-error`):
/// answers `GET` requests from a ``ResponseCache`` while the stored response is fresh, revalidates
/// it with `If-None-Match` / `If-Modified-Since` when it is not, and stores what may be stored.
///
/// ```swift
/// let client = APIClient(baseURL: api, middlewares: [ResponseCacheMiddleware()])
/// // A route can override the headers: var cachePolicy: CachePolicy? { .timeToLive(.seconds(300)) }
/// ```
///
/// - Age and freshness follow RFC 9111 §4.2 exactly: the age from `Date`, `Age` and the time the
///   exchange took; the lifetime from `max-age` (`s-maxage` for a shared cache), else `Expires` −
///   `Date`, else a heuristic from `Last-Modified` (``CachePolicy/heuristicFreshness``). A hit
///   carries an `Age` header. A route's ``CachePolicy/Freshness/timeToLive(_:)`` replaces the
///   lifetime (a `no-store` response is still never stored).
/// - A `304 Not Modified` hands back the stored body under the refreshed headers, as the stored
///   status, and restarts its freshness.
/// - `Vary`: several variants of one URL are kept, chosen by the request's values of the named
///   headers (whitespace and case normalised); `Vary: *` is never stored.
/// - Request directives `max-age`, `max-stale`, `min-fresh`, `only-if-cached`, `no-cache`,
///   `no-store`, `stale-if-error`; per-route modes (``CachePolicy/Mode``) give the same without
///   writing headers.
/// - Within a response's `stale-while-revalidate` window a stale response is served at once while
///   one background revalidation per URL refreshes it; within `stale-if-error` a stale response
///   answers a `5xx` or a failed connection.
/// - Responses to requests that carry credentials (sensitive headers, secret query items) are not
///   stored unless the route's policy sets ``CachePolicy/storesAuthenticatedResponses``.
/// - A successful unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`) to a URL forgets its stored
///   `GET`, and those of the same-origin `Location` and `Content-Location` it answers with.
/// - Never stored: `Set-Cookie` (from any response, a `304` included), hop-by-hop fields and the
///   fields a `Connection` header names.
///
/// Place it after the authentication middleware, so it sees the credentials it must not mix up.
/// Downloads streamed to disk pass through untouched.
public struct ResponseCacheMiddleware: Middleware {
    /// The storage.
    public let cache: ResponseCache
    /// The policy for requests whose route declares none.
    public let policy: CachePolicy
    let now: @Sendable () -> Date
    let revalidations: BackgroundRevalidations

    /// The statuses stored with an explicit or heuristic lifetime, or validators (206 is left out:
    /// the cache does not combine ranges; 501 too: no `5xx` is stored, so that a server error never
    /// replaces a response `stale-if-error` may answer with).
    static let storableStatuses = CacheFreshness.heuristicallyCacheable.subtracting([206, 501])
    /// Statuses stored only with an explicit lifetime.
    static let explicitOnlyStatuses: Set<Int> = [302, 307]
    /// The statuses `stale-if-error` answers for.
    static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// Creates a cache middleware.
    ///
    /// - Parameters:
    ///   - cache: Where responses are kept; a memory-only cache by default.
    ///   - policy: Used when the route declares no ``Route/cachePolicy``.
    ///   - maximumBackgroundRevalidations: How many `stale-while-revalidate` refreshes may run at
    ///     once; beyond it a stale response is still served but not refreshed in the background.
    ///   - now: The current time; injectable for tests.
    public init(
        cache: ResponseCache = ResponseCache(),
        policy: CachePolicy = .default,
        maximumBackgroundRevalidations: Int = 4,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.cache = cache
        self.policy = policy
        self.now = now
        self.revalidations = BackgroundRevalidations(limit: maximumBackgroundRevalidations)
    }

    /// The number of background revalidations started so far.
    public var backgroundRevalidationCount: Int { revalidations.startedCount }

    /// Waits until the background revalidations running now have finished.
    public func waitForBackgroundRevalidations() async {
        await revalidations.waitForAll()
    }

    /// Cancels the background revalidations running now. They are cancelled anyway when the last
    /// copy of this middleware (the last client holding it) goes away.
    public func cancelBackgroundRevalidations() {
        revalidations.cancelAll()
    }

    /// Answers from the cache, revalidates, or passes the request on and stores the response.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        // A body streamed to disk never passes through here: nothing to store.
        guard !request.streamsResponse else { return try await next(request) }
        guard request.method == .get, request.body == nil else {
            return try await passUnsafe(request, next: next)
        }
        let policy = request.policies.cache ?? self.policy
        let mode = policy.freshness == .noStore ? .noStore : policy.mode
        let directives = CacheControl(request.headers)
        let credential = Self.credentialDigest(of: request)
        let mayStore = credential == nil || policy.storesAuthenticatedResponses
        let onlyIfCached = mode == .onlyIfCached || directives.onlyIfCached
        guard mayStore, mode != .noStore, !directives.noStore, !request.headers.contains(.ifNoneMatch),
            !request.headers.contains(.ifModifiedSince)
        else {
            return onlyIfCached ? Self.gatewayTimeout(for: request) : try await next(request)
        }
        let exchange = CacheExchange(
            middleware: self, request: request, key: Self.key(for: request.url, credential: credential),
            policy: policy, directives: directives, next: next)
        return try await exchange.run(mode: mode, onlyIfCached: onlyIfCached, revalidations: revalidations)
    }

    /// An unsafe or bodied request: passed on; a success forgets what is stored for its URL and for
    /// the same-origin URLs its `Location` and `Content-Location` name (RFC 9111 §4.4).
    private func passUnsafe(
        _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let response = try await next(request)
        guard !request.method.isSafe, (200..<400).contains(response.status.code) else { return response }
        let credential = Self.credentialDigest(of: request)
        var targets = [request.url]
        for name in [HTTPHeaders.Name.location, "Content-Location"] {
            guard let value = response.headers[name],
                let url = URL(string: value, relativeTo: request.url)?.absoluteURL,
                url.scheme == request.url.scheme, url.host == request.url.host, url.port == request.url.port
            else { continue }
            targets.append(url)
        }
        for url in targets {
            cache.removeEntry(forKey: Self.key(for: url, credential: credential))
            if credential != nil { cache.removeEntry(forKey: Self.key(for: url, credential: nil)) }
        }
        return response
    }

    /// The answer to `only-if-cached` when nothing stored may be used (RFC 9111 §5.2.1.7).
    static func gatewayTimeout(for request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(
            status: .gatewayTimeout, headers: [.contentType: "text/plain"],
            body: Data("only-if-cached: no stored response may be used".utf8), url: request.url)
    }

    /// The cache key: the URL, and for authenticated requests a digest of their credentials. It is
    /// never stored in clear (see ``CachedResponse``).
    static func key(for url: URL, credential: String?) -> String {
        "GET \(url.absoluteString)" + (credential.map { " credential:\($0)" } ?? "")
    }

    /// A digest of the credentials a request carries, or `nil` when it carries none.
    private static func credentialDigest(of request: HTTPRequest) -> String? {
        var secrets = request.headers.filter(\.isSensitive).map { "\($0.name.canonicalName): \($0.value)" }
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        for item in components?.queryItems ?? [] where Redaction.isCredential(queryItem: item.name, of: request) {
            secrets.append("\(item.name)=\(item.value ?? "")")
        }
        if let user = components?.user { secrets.append("user=\(user)") }
        if let password = components?.password { secrets.append("password=\(password)") }
        return secrets.isEmpty ? nil : SHA256.hexDigest(secrets.sorted().joined(separator: "\n"))
    }
}
