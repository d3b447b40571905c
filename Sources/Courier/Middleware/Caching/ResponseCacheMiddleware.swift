import Foundation

/// Answers `GET` requests from a ``ResponseCache`` while the stored response is fresh, revalidates
/// it with `If-None-Match` / `If-Modified-Since` when it is not, and stores what may be stored.
///
/// ```swift
/// let client = APIClient(baseURL: api, middlewares: [ResponseCacheMiddleware()])
/// // A route can override the headers: var cachePolicy: CachePolicy? { .timeToLive(.seconds(300)) }
/// ```
///
/// - Freshness follows `Cache-Control` (`max-age`, `no-cache`, `no-store`, `private`, and
///   `s-maxage` for a shared cache), then `Expires`; a route's ``CachePolicy/Freshness/timeToLive(_:)``
///   replaces them (a `no-store` response is still never stored).
/// - A `304 Not Modified` hands back the stored body under the refreshed headers, as the stored
///   status, and restarts its freshness.
/// - Responses to requests that carry credentials (sensitive headers, secret query items) are not
///   stored unless the route's policy sets ``CachePolicy/storesAuthenticatedResponses``.
/// - A successful unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`) to a URL forgets its stored `GET`.
/// - A request's own `Cache-Control: no-cache` skips the stored response; `no-store` bypasses the cache.
///   A request with its own conditional headers is passed through untouched.
///
/// Place it after the authentication middleware, so it sees the credentials it must not mix up.
/// Downloads streamed to disk pass through untouched.
public struct ResponseCacheMiddleware: Middleware {
    /// The storage.
    public let cache: ResponseCache
    /// The policy for requests whose route declares none.
    public let policy: CachePolicy
    private let now: @Sendable () -> Date

    private static let storableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 410]

    /// Creates a cache middleware.
    ///
    /// - Parameters:
    ///   - cache: Where responses are kept; a memory-only cache by default.
    ///   - policy: Used when the route declares no ``Route/cachePolicy``.
    ///   - now: The current time; injectable for tests.
    public init(
        cache: ResponseCache = ResponseCache(),
        policy: CachePolicy = .default,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.cache = cache
        self.policy = policy
        self.now = now
    }

    /// Answers from the cache, revalidates, or passes the request on and stores the response.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        // A body streamed to disk never passes through here: nothing to store.
        guard !request.streamsResponse else { return try await next(request) }
        guard request.method == .get, request.body == nil else {
            let response = try await next(request)
            if !request.method.isSafe, (200..<400).contains(response.status.code) {
                cache.removeEntry(forKey: Self.key(for: request.url, credential: Self.credentialDigest(of: request)))
            }
            return response
        }
        let policy = request.policies.cache ?? self.policy
        let credential = Self.credentialDigest(of: request)
        let mayStore = policy.freshness != .noStore && (credential == nil || policy.storesAuthenticatedResponses)
        let directives = CacheControl(request.headers)
        guard mayStore, !directives.noStore, !request.headers.contains(.ifNoneMatch),
            !request.headers.contains(.ifModifiedSince)
        else { return try await next(request) }

        let key = Self.key(for: request.url, credential: credential)
        let stored = cache.entry(forKey: key).flatMap { $0.matchesVary(of: request) ? $0 : nil }
        if let stored, !directives.noCache, stored.isFresh(at: now()) {
            return stored.response(for: request)
        }
        var conditional = request
        if let stored {
            if let eTag = stored.eTag { conditional.headers.set(.ifNoneMatch, eTag) }
            if let lastModified = stored.lastModified { conditional.headers.set(.ifModifiedSince, lastModified) }
        }
        let response = try await next(conditional)
        let received = now()
        if response.status == .notModified, let stored {
            let headers = stored.revalidated(by: response)
            var refreshed = stored
            refreshed.replaceHeaders(with: headers)
            refreshed.storedAt = received
            refreshed.freshUntil = freshness(of: headers, policy: policy, at: received) ?? received
            cache.store(refreshed, forKey: key)
            // This exchange's answer keeps the 304's Set-Cookie (a cookie jar before the cache stores
            // it); the entry never does.
            var answer = refreshed.response(for: request)
            answer.headers = headers
            return answer
        }
        store(response, for: request, key: key, policy: policy, at: received)
        return response
    }

    private func store(
        _ response: HTTPResponse, for request: HTTPRequest, key: String, policy: CachePolicy, at time: Date
    ) {
        let control = CacheControl(response.headers)
        let shared = cache.configuration.isShared
        guard Self.storableStatuses.contains(response.status.code), !control.noStore,
            !(shared && control.isPrivate), !CachedResponse.varyNames(of: response.headers).contains("*"),
            let freshUntil = freshness(of: response.headers, policy: policy, at: time)
                ?? (response.headers.contains(.eTag) || response.headers.contains(.lastModified) ? time : nil)
        else {
            cache.removeEntry(forKey: key)
            return
        }
        cache.store(
            CachedResponse(response: response, request: request, storedAt: time, freshUntil: freshUntil), forKey: key)
    }

    /// Until when a response with these headers is fresh; `nil` when they do not say.
    private func freshness(of headers: HTTPHeaders, policy: CachePolicy, at time: Date) -> Date? {
        if case .timeToLive(let duration) = policy.freshness {
            return time.addingTimeInterval(duration.timeInterval)
        }
        let control = CacheControl(headers)
        if control.noCache { return time }
        let age = headers["Age"].flatMap(Double.init) ?? 0
        let maxAge = cache.configuration.isShared ? control.sharedMaxAge ?? control.maxAge : control.maxAge
        if let maxAge {
            return time.addingTimeInterval(Double(maxAge) - age)
        }
        if let expires = headers["Expires"] {
            // An Expires that is not a date means "already expired" (RFC 9111 §5.3).
            guard let date = HTTPDate.parse(expires) else { return time }
            let serverNow = headers["Date"].flatMap(HTTPDate.parse) ?? time
            return time.addingTimeInterval(date.timeIntervalSince(serverNow))
        }
        return nil
    }

    /// The cache key: the URL, and for authenticated requests a digest of their credentials. It is
    /// never stored in clear (see ``CachedResponse``).
    private static func key(for url: URL, credential: String?) -> String {
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
