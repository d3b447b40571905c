import Foundation

/// One cacheable `GET` passing through ``ResponseCacheMiddleware``: chooses a stored response
/// (RFC 9111 §4), revalidates or fetches, and stores the result (§3).
///
/// It holds neither the middleware nor its background revalidations, so a refresh it starts keeps
/// nothing alive that would stop the middleware's release from cancelling it.
struct CacheExchange: Sendable {
    let cache: ResponseCache
    let now: @Sendable () -> Date
    let request: HTTPRequest
    let key: String
    let policy: CachePolicy
    let directives: CacheControl
    let next: @Sendable (HTTPRequest) async throws -> HTTPResponse

    init(
        middleware: ResponseCacheMiddleware, request: HTTPRequest, key: String, policy: CachePolicy,
        directives: CacheControl, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) {
        cache = middleware.cache
        now = middleware.now
        self.request = request
        self.key = key
        self.policy = policy
        self.directives = directives
        self.next = next
    }

    func run(
        mode: CachePolicy.Mode, onlyIfCached: Bool, revalidations: BackgroundRevalidations
    ) async throws -> HTTPResponse {
        let requestTime = now()
        let stored = cache.entry(forKey: key, matching: request)
        switch mode {
        case .reload:
            return try await fetch(validating: nil, staleFallback: nil, requestTime: requestTime)
        case .forceCache, .onlyIfCached:
            if let stored { return stored.response(for: request, at: requestTime) }
            if mode == .onlyIfCached { return ResponseCacheMiddleware.gatewayTimeout(for: request) }
            return try await fetch(validating: nil, staleFallback: nil, requestTime: requestTime)
        case .noCache:
            return try await fetch(validating: stored, staleFallback: stored, requestTime: requestTime)
        case .default, .noStore:
            break
        }
        guard let stored else {
            if onlyIfCached { return ResponseCacheMiddleware.gatewayTimeout(for: request) }
            return try await fetch(validating: nil, staleFallback: nil, requestTime: requestTime)
        }
        if isUsable(stored, at: requestTime) { return stored.response(for: request, at: requestTime) }
        // only-if-cached never reaches the network (§5.2.1.7), a background revalidation included.
        if !onlyIfCached, servesWhileRevalidating(stored, at: requestTime) {
            let refresh = self
            // The client alone, none of the call's own state (a detached task would lose the client).
            let context = CallContext.current.background
            revalidations.start(key: key + "\n" + stored.varyValues.sorted { $0.key < $1.key }.description) {
                await CallContext.$current.withValue(context) {
                    _ = try? await refresh.fetch(validating: stored, staleFallback: nil, requestTime: refresh.now())
                }
            }
            return stored.response(for: request, at: requestTime)
        }
        if onlyIfCached { return ResponseCacheMiddleware.gatewayTimeout(for: request) }
        return try await fetch(validating: stored, staleFallback: stored, requestTime: requestTime)
    }

    /// The response's own directives, or none when a route's time to live replaces them.
    private func responseDirectives(of entry: CachedResponse) -> CacheControl {
        if case .timeToLive = policy.freshness { return CacheControl([:]) }
        return CacheControl(entry.httpHeaders)
    }

    /// Whether a stale response may never be served (§4.2.4): `no-cache`, `must-revalidate`, and
    /// for a shared cache `proxy-revalidate` or `s-maxage`.
    private func forbidsStale(_ control: CacheControl) -> Bool {
        control.noCache || control.mustRevalidate
            || (cache.configuration.isShared && (control.proxyRevalidate || control.sharedMaxAge != nil))
    }

    /// Whether `entry` answers the request without contacting the server (§4.2, §5.2.1).
    private func isUsable(_ entry: CachedResponse, at time: Date) -> Bool {
        let control = responseDirectives(of: entry)
        guard !directives.noCache, !control.noCache else { return false }
        let age = entry.currentAge(at: time)
        if let maxAge = directives.maxAge, age > TimeInterval(maxAge) { return false }
        let remaining = entry.freshnessLifetime - age
        if let minFresh = directives.minFresh, remaining < TimeInterval(minFresh) { return false }
        if remaining > 0 { return true }
        guard let maxStale = directives.maxStale, !forbidsStale(control) else { return false }
        return -remaining <= TimeInterval(maxStale)
    }

    /// Whether `entry` is within its `stale-while-revalidate` window (RFC 5861 §3) and the request
    /// asks for nothing fresher.
    private func servesWhileRevalidating(_ entry: CachedResponse, at time: Date) -> Bool {
        let control = responseDirectives(of: entry)
        guard let window = control.staleWhileRevalidate, !forbidsStale(control), !directives.noCache,
            directives.maxAge == nil, directives.minFresh == nil
        else { return false }
        return entry.staleness(at: time) <= TimeInterval(window)
    }

    /// Whether `entry` may answer for an error (RFC 5861 §4): within the response's or the
    /// request's `stale-if-error` window.
    private func servesOnError(_ entry: CachedResponse, at time: Date) -> Bool {
        let control = responseDirectives(of: entry)
        let window = max(control.staleIfError ?? -1, directives.staleIfError ?? -1)
        guard window >= 0, !forbidsStale(control) else { return false }
        return entry.staleness(at: time) <= TimeInterval(window)
    }

    /// Sends the request, conditional on `validating`'s validators, and stores what comes back;
    /// `staleFallback` answers a `5xx` or a connection failure within its `stale-if-error` window.
    func fetch(
        validating stored: CachedResponse?, staleFallback: CachedResponse?, requestTime: Date
    ) async throws -> HTTPResponse {
        var conditional = request
        if let stored {
            if let eTag = stored.eTag { conditional.headers.set(.ifNoneMatch, eTag) }
            if let lastModified = stored.lastModified { conditional.headers.set(.ifModifiedSince, lastModified) }
        }
        let response: HTTPResponse
        do {
            response = try await next(conditional)
        } catch let error as APIError {
            guard case .transport = error.kind, let staleFallback, servesOnError(staleFallback, at: now()) else {
                throw error
            }
            return staleFallback.response(for: request, at: now())
        }
        let received = now()
        if let staleFallback, ResponseCacheMiddleware.errorStatuses.contains(response.status.code),
            servesOnError(staleFallback, at: received)
        {
            return staleFallback.response(for: request, at: received)
        }
        if response.status == .notModified, let stored {
            guard Self.validates(stored, notModified: response) else {
                // A 304 for another representation updates nothing (§4.3.4): ask again, unconditionally.
                return try await fetch(validating: nil, staleFallback: staleFallback, requestTime: now())
            }
            return refresh(stored, with: response, requestTime: requestTime, received: received)
        }
        store(response, requestTime: requestTime, received: received)
        return response
    }

    /// Whether a `304` is about `stored` (§4.3.4): its `ETag`, when it sends one, is the stored one
    /// (compared weakly).
    static func validates(_ stored: CachedResponse, notModified: HTTPResponse) -> Bool {
        guard let sent = notModified.headers[.eTag], let kept = stored.eTag else { return true }
        return opaque(sent) == opaque(kept)
    }

    /// A `304`'s update (§4.3.4): its headers merged into the stored response its validator
    /// selects among those stored *now* (not the copy read when the request was sent, which a newer
    /// response may have replaced meanwhile), its age and lifetime taken anew. When none is
    /// selected nothing is updated, and this exchange is answered from the copy it revalidated.
    /// The answer keeps the 304's `Set-Cookie` (for a cookie jar placed before the cache); the
    /// entry never does.
    private func refresh(
        _ sent: CachedResponse, with notModified: HTTPResponse, requestTime: Date, received: Date
    ) -> HTTPResponse {
        let initialAge = CacheFreshness.correctedInitialAge(
            of: notModified.headers, requestTime: requestTime, responseTime: received)
        func updated(_ entry: CachedResponse) -> CachedResponse {
            let headers = entry.revalidated(by: notModified)
            var refreshed = entry
            refreshed.replaceHeaders(with: headers)
            refreshed.renominate(from: request)
            refreshed.storedAt = received
            refreshed.correctedInitialAge = initialAge
            refreshed.freshnessLifetime =
                lifetime(of: headers, status: entry.status, received: received, initialAge: initialAge) ?? 0
            return refreshed
        }
        let stored = cache.update(forKey: key) { variants -> ([CachedResponse], CachedResponse)? in
            guard let index = Self.selectedIndex(in: variants, by: notModified, sent: sent, request: request) else {
                return nil
            }
            let refreshed = updated(variants[index])
            var others = variants
            others.remove(at: index)
            let forgets =
                CacheControl(refreshed.httpHeaders).noStore
                || CachedResponse.varyNames(of: refreshed.httpHeaders).contains("*")
            return forgets ? (others, refreshed) : ([refreshed] + others, refreshed)
        }
        var answer = (stored ?? updated(sent)).response(for: request, at: received)
        for field in notModified.headers where field.name == .setCookie {
            answer.headers.add(field.name, field.value)
        }
        return answer
    }

    /// Which of `variants` a `304` updates (§4.3.4), `nil` for none: the one with its strong
    /// `ETag` (or its weak one, compared weakly); without an `ETag`, the one with its
    /// `Last-Modified`; without either, the one with the validators the request sent (`sent`'s).
    /// Among several, the one `request` selects, else the most recent.
    static func selectedIndex(
        in variants: [CachedResponse], by notModified: HTTPResponse, sent: CachedResponse, request: HTTPRequest
    ) -> Int? {
        let selects: (CachedResponse) -> Bool
        if let tag = notModified.headers[.eTag]?.trimmingCharacters(in: .whitespaces) {
            if tag.hasPrefix("W/") {
                selects = { $0.eTag.map { opaque($0) == opaque(tag) } ?? false }
            } else {
                selects = { $0.eTag?.trimmingCharacters(in: .whitespaces) == tag }
            }
        } else if let lastModified = notModified.headers[.lastModified] {
            selects = { $0.eTag == sent.eTag && $0.lastModified == lastModified }
        } else {
            selects = { $0.eTag == sent.eTag && $0.lastModified == sent.lastModified }
        }
        let selected = variants.indices.filter { selects(variants[$0]) }
        return selected.first { variants[$0].matchesVary(of: request) } ?? selected.first
    }

    /// An entity tag without its weakness indicator, for the weak comparison (RFC 9110 §8.8.3.2).
    private static func opaque(_ tag: String) -> String {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
    }

    /// Stores `response` if it may be (§3), else forgets what the request would have selected; a
    /// `5xx` leaves the stored response alone (§4.3.3: a server error is no new representation,
    /// and the stored one may still answer within `stale-if-error`).
    private func store(_ response: HTTPResponse, requestTime: Date, received: Date) {
        let control = CacheControl(response.headers)
        let status = response.status.code
        guard !(500...599).contains(status) else { return }
        let age = CacheFreshness.correctedInitialAge(
            of: response.headers, requestTime: requestTime, responseTime: received)
        let lifetime = lifetime(of: response.headers, status: status, received: received, initialAge: age)
        let hasValidators = response.headers.contains(.eTag) || response.headers.contains(.lastModified)
        let isStorable =
            ResponseCacheMiddleware.storableStatuses.contains(status)
            ? lifetime != nil || hasValidators
            : ResponseCacheMiddleware.explicitOnlyStatuses.contains(status) && lifetime != nil
        guard isStorable, !control.noStore, !(cache.configuration.isShared && control.isPrivate),
            !CachedResponse.varyNames(of: response.headers).contains("*")
        else {
            cache.removeEntry(forKey: key, matching: request)
            return
        }
        let entry = CachedResponse(
            response: response, request: request, storedAt: received, correctedInitialAge: age,
            freshnessLifetime: lifetime ?? 0)
        cache.store(entry, forKey: key, request: request)
    }

    /// The freshness lifetime of a response with `headers` (§4.2.1, §4.2.2), or a route's time to
    /// live counted from when it was received; `nil` when nothing gives one.
    private func lifetime(of headers: HTTPHeaders, status: Int, received: Date, initialAge: TimeInterval)
        -> TimeInterval?
    {
        if case .timeToLive(let duration) = policy.freshness { return initialAge + duration.timeInterval }
        let heuristic = policy.heuristicFreshness.map {
            CacheFreshness.Heuristic(fraction: $0.fraction, limit: $0.limit.timeInterval)
        }
        return CacheFreshness.lifetime(
            of: headers, status: status, isShared: cache.configuration.isShared, responseTime: received,
            heuristic: heuristic)
    }
}
