import Foundation

/// Cookies kept explicitly, by RFC 6265's storage model, and sent by ``CookieMiddleware``: nothing
/// is stored or sent unless a client has this middleware, and it behaves the same on every transport.
///
/// ```swift
/// let jar = CookieJar()
/// let client = APIClient(baseURL: url, middlewares: [CookieMiddleware(jar: jar), LoggingMiddleware()])
/// _ = try await client.send(.post("login", body: credentials, as: EmptyResponse.self))   // 302 + Set-Cookie
/// let home = try await client.send(.get("home", as: Home.self))                         // sends the cookie
/// ```
///
/// - Host-only cookies go to their host only; a `Domain` cookie to the domain and its subdomains.
///   A `Domain` that the request host does not domain-match, an IP address other than the host, or
///   a single label (`com`, `localhost`) other than the host is refused (a single label or IP equal to
///   the host makes a host-only cookie).
/// - `Path` defaults to the request path's folder; a cookie goes to requests under its path.
/// - `Secure` cookies are stored only from HTTPS and sent only over HTTPS.
/// - `Max-Age` wins over `Expires`; a date in the past or an age of zero deletes the cookie.
/// - Limits: ``Limits`` on one cookie's size, per domain and in all; the least recently used go first.
///
/// The jar is safe to share between tasks and clients.
public final class CookieJar: Sendable {
    /// The sizes a jar keeps to.
    public struct Limits: Sendable, Hashable {
        /// The most bytes of one cookie's name and value together: 4096 by default.
        public var maximumCookieSize: Int
        /// The most cookies for one domain: 50 by default.
        public var maximumCookiesPerDomain: Int
        /// The most cookies in all: 3000 by default.
        public var maximumCookies: Int

        /// Creates limits.
        public init(maximumCookieSize: Int = 4096, maximumCookiesPerDomain: Int = 50, maximumCookies: Int = 3000) {
            self.maximumCookieSize = maximumCookieSize
            self.maximumCookiesPerDomain = max(1, maximumCookiesPerDomain)
            self.maximumCookies = max(1, maximumCookies)
        }
    }

    private struct Entry {
        var cookie: Cookie
        var lastAccess: Date
    }

    /// The jar's limits.
    public let limits: Limits
    /// The file persistent cookies are kept in, if any.
    public let file: URL?
    private let now: @Sendable () -> Date
    private let entries = Locked([Entry]())

    /// Creates an empty jar kept in memory.
    ///
    /// - Parameters:
    ///   - limits: Size limits.
    ///   - now: The clock expiry is measured by.
    public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.limits = limits
        self.now = now
        file = nil
    }

    /// Creates a jar that keeps its persistent cookies (those with an expiry) in `file`, readable
    /// and writable by the current user only, and loads the ones there. Session cookies stay in memory.
    ///
    /// - Throws: ``APIError/Kind/invalidRequest`` when the file is a symbolic link, belongs to
    ///   another user, or cannot be read as a jar.
    public init(
        persistingTo file: URL, limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.limits = limits
        self.now = now
        self.file = file
        try CookieFile.checkOwnership(file)
        let loaded = try CookieFile.load(file)
        let date = now()
        entries.withLock { entries in
            entries = loaded.filter { ($0.expires ?? .distantFuture) > date }.map {
                Entry(cookie: $0, lastAccess: date)
            }
        }
    }

    // MARK: Storing

    /// Stores the cookies of every `Set-Cookie` field of a response to a request for `url`.
    public func store(from response: HTTPResponse, for url: URL) {
        let values = response.headers.values(for: .setCookie)
        guard !values.isEmpty else { return }
        var changed = false
        for value in values.flatMap(SetCookie.split) {
            if let cookie = SetCookie(value) { changed = store(cookie, from: url) || changed }
        }
        if changed { persist() }
    }

    /// Stores one `Set-Cookie` value received from `url`; `false` when the jar refused it.
    @discardableResult
    public func store(setCookie value: String, from url: URL) -> Bool {
        guard let cookie = SetCookie(value) else { return false }
        let stored = store(cookie, from: url)
        if stored { persist() }
        return stored
    }

    private func store(_ received: SetCookie, from url: URL) -> Bool {
        guard let host = url.host?.lowercased(), !host.isEmpty,
            received.name.utf8.count + received.value.utf8.count <= limits.maximumCookieSize
        else { return false }
        let isSecureRequest = url.scheme?.lowercased() == "https"
        if received.isSecure, !isSecureRequest { return false }
        var domain = host
        var isHostOnly = true
        if let attribute = received.domain, attribute != host || !Self.isSpecialHost(attribute) {
            guard !Self.isSpecialHost(attribute), CookieRules.domain(host, matches: attribute) else { return false }
            domain = attribute
            isHostOnly = false
        }
        let date = now()
        var expires: Date?
        if let maxAge = received.maxAge {
            expires = maxAge <= 0 ? .distantPast : date.addingTimeInterval(TimeInterval(maxAge))
        } else {
            expires = received.expires
        }
        let cookie = Cookie(
            name: received.name, value: received.value, domain: domain, isHostOnly: isHostOnly,
            path: received.path ?? CookieRules.defaultPath(of: url), expires: expires, isSecure: received.isSecure,
            isHTTPOnly: received.isHTTPOnly, sameSite: received.sameSite, created: date)
        return entries.withLock { entries in
            let existing = entries.firstIndex {
                $0.cookie.name == cookie.name && $0.cookie.domain == cookie.domain && $0.cookie.path == cookie.path
            }
            // A cookie set over plain HTTP never replaces one that was set Secure.
            if let existing, entries[existing].cookie.isSecure, !isSecureRequest { return false }
            if let expires, expires <= date {
                if let existing { entries.remove(at: existing) }
                return true
            }
            var stored = cookie
            if let existing {
                stored.created = entries[existing].cookie.created
                entries[existing] = Entry(cookie: stored, lastAccess: date)
            } else {
                entries.append(Entry(cookie: stored, lastAccess: date))
            }
            evict(&entries, now: date, domain: cookie.domain)
            return true
        }
    }

    /// An IP address or a single label: a `Domain` only when it is the host itself.
    private static func isSpecialHost(_ domain: String) -> Bool {
        CookieRules.isIPAddress(domain) || !domain.contains(".")
    }

    /// Drops expired cookies, then the least recently used beyond the domain's and the jar's limits.
    private func evict(_ entries: inout [Entry], now date: Date, domain: String) {
        entries.removeAll { ($0.cookie.expires ?? .distantFuture) <= date }
        let inDomain = entries.indices.filter { entries[$0].cookie.domain == domain }
        if inDomain.count > limits.maximumCookiesPerDomain {
            let oldest = inDomain.sorted { entries[$0].lastAccess < entries[$1].lastAccess }
            let doomed = Set(oldest.prefix(inDomain.count - limits.maximumCookiesPerDomain))
            entries = entries.indices.filter { !doomed.contains($0) }.map { entries[$0] }
        }
        if entries.count > limits.maximumCookies {
            entries.sort { $0.lastAccess > $1.lastAccess }
            entries.removeLast(entries.count - limits.maximumCookies)
        }
    }

    // MARK: Reading

    /// The cookies that go with a request to `url`, in the order they are sent: longer paths first,
    /// then the earlier created.
    public func cookies(for url: URL) -> [Cookie] {
        let date = now()
        return entries.withLock { entries in
            var matching: [Int] = []
            for index in entries.indices {
                let cookie = entries[index].cookie
                guard (cookie.expires ?? .distantFuture) > date, cookie.matches(url) else { continue }
                entries[index].lastAccess = date
                matching.append(index)
            }
            return matching.map { entries[$0].cookie }.sorted {
                $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.created < $1.created
            }
        }
    }

    /// The `Cookie` header value for a request to `url`, or `nil` when no cookie goes with it.
    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Every unexpired cookie.
    public var allCookies: [Cookie] {
        let date = now()
        return entries.withLock { $0.map(\.cookie).filter { ($0.expires ?? .distantFuture) > date } }
    }

    // MARK: Removing

    /// Removes every cookie (and empties the file).
    public func removeAll() {
        entries.withLock { $0.removeAll() }
        persist()
    }

    /// Removes the cookies for which `shouldRemove` is true.
    public func remove(where shouldRemove: (Cookie) -> Bool) {
        entries.withLock { $0.removeAll { shouldRemove($0.cookie) } }
        persist()
    }

    // MARK: Persistence

    /// Writes the persistent cookies to ``file`` now. The jar does it after every change; this is
    /// for callers who want to know it succeeded.
    ///
    /// - Throws: The file system's error.
    public func save() throws {
        guard let file else { return }
        let date = now()
        let persistent = entries.withLock { entries in
            entries.map(\.cookie).filter { cookie in cookie.expires.map { $0 > date } ?? false }
        }
        try CookieFile.save(persistent, to: file)
    }

    private func persist() {
        try? save()
    }
}
