import Foundation

/// Cookies kept explicitly, by RFC 6265's storage model with the rules browsers add, and sent by
/// ``CookieMiddleware``: nothing is stored or sent unless a client has this middleware, and it
/// behaves the same on every transport.
///
/// ```swift
/// let jar = CookieJar()
/// let client = APIClient(baseURL: url, middlewares: [CookieMiddleware(jar: jar), LoggingMiddleware()])
/// _ = try await client.send(.post("login", body: credentials, as: EmptyResponse.self))   // 302 + Set-Cookie
/// let home = try await client.send(.get("home", as: Home.self))                         // sends the cookie
/// ```
///
/// - One `Set-Cookie` field is one cookie; commas inside it are part of it.
/// - Host-only cookies go to their host only; a `Domain` cookie to the domain and its subdomains.
///   A `Domain` the host does not domain-match, one that is a public suffix (`co.uk`, `github.io`,
///   by the Public Suffix List), one above the host's registrable domain, one with a trailing dot,
///   or not ASCII (use punycode) is refused; a `Domain` equal to a host that is a public suffix
///   makes a host-only cookie. Hosts compare in one canonical spelling: IP addresses in any
///   notation (`0x7f.1` is `127.0.0.1`) are always host-only.
/// - `Path` defaults to the request path's folder; a cookie goes to requests under its path
///   (compared byte by byte).
/// - `Secure` cookies are stored only from HTTPS and sent only over HTTPS, and plain HTTP cannot
///   replace, delete or shadow one (a cookie of the same name whose domain overlaps and whose path
///   is under the secure one's). Names starting `__Secure-` need `Secure`; `__Host-` also need no
///   `Domain` and `Path=/`.
/// - `Max-Age` wins over `Expires`; a date in the past or an age of zero deletes the cookie; no
///   cookie lives longer than 400 days.
/// - Limits (``Limits``): one cookie's size, cookies per site (registrable domain) evicted within
///   the site, cookies in all, cookies taken from one response.
/// - `SameSite` is stored, not enforced: a jar has no browsing context (no top-level site, no
///   navigation) to judge a request "cross-site" by. `HttpOnly` is stored; every use is HTTP.
/// - Cookies do not isolate ports (RFC 6265 §8.5): a host's cookies go to all its ports.
///
/// The jar is safe to share between tasks and clients; it runs no closure of yours under its lock.
public final class CookieJar: Sendable {
    /// The sizes a jar keeps to.
    public struct Limits: Sendable, Hashable {
        /// The most bytes of one cookie's name and value together: 4096 by default.
        public var maximumCookieSize: Int
        /// The most cookies for one site (registrable domain, `example.co.uk` for
        /// `a.b.example.co.uk`): 50 by default, as in browsers.
        public var maximumCookiesPerSite: Int
        /// The most cookies in all: 3000 by default. Past it, the jar purges down to nine tenths.
        public var maximumCookies: Int
        /// The most `Set-Cookie` fields taken from one response: 50 by default; the rest are ignored.
        public var maximumCookiesPerResponse: Int

        /// The most cookies for one site (the former name of ``maximumCookiesPerSite``).
        public var maximumCookiesPerDomain: Int {
            get { maximumCookiesPerSite }
            set { maximumCookiesPerSite = max(1, newValue) }
        }

        /// Creates limits.
        public init(
            maximumCookieSize: Int = 4096, maximumCookiesPerDomain: Int = 50, maximumCookies: Int = 3000,
            maximumCookiesPerResponse: Int = 50
        ) {
            self.maximumCookieSize = maximumCookieSize
            self.maximumCookiesPerSite = max(1, maximumCookiesPerDomain)
            self.maximumCookies = max(1, maximumCookies)
            self.maximumCookiesPerResponse = max(1, maximumCookiesPerResponse)
        }
    }

    /// The longest a cookie lives (RFC 6265bis §5.5: 400 days).
    static let maximumLifetime: TimeInterval = 400 * 86_400

    /// The jar's limits.
    public let limits: Limits
    /// The file persistent cookies are kept in, if any.
    public let file: URL?
    private let now: @Sendable () -> Date
    private let storage: Locked<CookieStorage>
    private let writer: CookieFileWriter?
    let suffixes: PublicSuffixList

    /// Creates an empty jar kept in memory.
    ///
    /// - Parameters:
    ///   - limits: Size limits.
    ///   - now: The clock expiry is measured by.
    public convenience init(limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(limits: limits, now: now, suffixes: .shared)
    }

    init(limits: Limits, now: @escaping @Sendable () -> Date, suffixes: PublicSuffixList) {
        self.limits = limits
        self.now = now
        self.suffixes = suffixes
        storage = Locked(CookieStorage(limits: limits))
        file = nil
        writer = nil
    }

    /// Creates a jar that keeps its persistent cookies (those with an expiry) in `file`, readable
    /// and writable by the current user only, and loads the ones there. Session cookies stay in
    /// memory. Every loaded cookie is checked by the rules a received one is (domain, path, name,
    /// size, expiry, limits); those that fail are dropped.
    ///
    /// A file others may read or write (group or other permissions) is not trusted: if it is a
    /// jar, its cookies are dropped and it is rewritten empty and owner-only; if it is not, the
    /// jar is refused and the file left as it is.
    ///
    /// - Throws: ``APIError/Kind/invalidRequest`` when the file is a symbolic link, not a regular
    ///   file, belongs to another user, or cannot be read as a jar.
    public convenience init(
        persistingTo file: URL, limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try self.init(persistingTo: file, limits: limits, now: now, suffixes: .shared)
    }

    init(persistingTo file: URL, limits: Limits, now: @escaping @Sendable () -> Date, suffixes: PublicSuffixList)
        throws
    {
        self.limits = limits
        self.now = now
        self.suffixes = suffixes
        self.file = file
        let writer = CookieFileWriter(file: file)
        // What another jar of this file has queued is on disk before this one reads it.
        writer.waitForQueuedWrites()
        let contents = try CookieFile.load(file)
        self.writer = writer
        storage = Locked(CookieStorage(limits: limits))
        let date = now()
        for cookie in contents.cookies {
            guard let cookie = validated(cookie, now: date), let host = CookieHost(cookie.domain) else { continue }
            let site = site(of: host)
            _ = storage.withLock { $0.store(cookie, site: site, now: date, fromSecureOrigin: true) }
        }
        if contents.wasOpenToOthers { try save() }
    }

    // MARK: Storing

    /// Stores the cookies of the `Set-Cookie` fields of a response to a request for `url`, one
    /// cookie a field, up to ``Limits/maximumCookiesPerResponse``.
    public func store(from response: HTTPResponse, for url: URL) {
        let values = response.headers.values(for: .setCookie)
        guard !values.isEmpty else { return }
        var changed = false
        for value in values.prefix(limits.maximumCookiesPerResponse) {
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
        let date = now()
        let isSecureOrigin = url.scheme?.lowercased() == "https"
        guard let host = url.host.flatMap(CookieHost.init),
            let cookie = accept(received, from: url, host: host, isSecureOrigin: isSecureOrigin, now: date)
        else { return false }
        let site = site(of: host)
        return storage.withLock { $0.store(cookie, site: site, now: date, fromSecureOrigin: isSecureOrigin) }
    }

    /// The cookie `received` makes for a request to `host`, or `nil` when it is refused.
    private func accept(
        _ received: SetCookie, from url: URL, host: CookieHost, isSecureOrigin: Bool, now date: Date
    ) -> Cookie? {
        if received.isSecure, !isSecureOrigin { return nil }
        var domain = host.name
        var isHostOnly = true
        if let attribute = received.domain {
            guard !attribute.hasSuffix("."), let target = CookieHost(attribute) else { return nil }
            if target.isIPAddress || host.isIPAddress {
                guard target == host else { return nil }
            } else if target.name == host.name {
                isHostOnly = suffixes.isPublicSuffix(host.name)
            } else {
                // Under the host's registrable domain and not a public suffix (RFC 6265 §5.3 step 5).
                guard host.domainMatches(target.name), !suffixes.isPublicSuffix(target.name),
                    let site = suffixes.registrableDomain(host.name),
                    CookieStorage.domain(target.name, matches: site)
                else { return nil }
                domain = target.name
                isHostOnly = false
            }
        }
        if Self.hasPrefix(received.name, "__Host-"), received.domain != nil || received.path != "/" { return nil }
        var expires = received.expires
        if let maxAge = received.maxAge {
            expires = maxAge <= 0 ? .distantPast : date.addingTimeInterval(TimeInterval(maxAge))
        }
        if let limit = expires, limit > date { expires = min(limit, date.addingTimeInterval(Self.maximumLifetime)) }
        let cookie = Cookie(
            name: received.name, value: received.value, domain: domain, isHostOnly: isHostOnly,
            path: received.path ?? CookieRules.defaultPath(of: url), expires: expires, isSecure: received.isSecure,
            isHTTPOnly: received.isHTTPOnly, sameSite: received.sameSite, created: date)
        // The prefixes bind every set, deletions included (RFC 6265bis §5.7).
        if Self.hasPrefix(received.name, "__Secure-") || Self.hasPrefix(received.name, "__Host-"), !received.isSecure {
            return nil
        }
        if let expires, expires <= date { return cookie }  // a deletion
        return validated(cookie, now: date)
    }

    /// The cookie if it keeps every rule a stored cookie keeps, whatever its origin (a response or
    /// the jar's file): name, value and path characters and sizes, a `SameSite` of at most 1,024
    /// bytes, a creation time not in the future, a canonical domain that is not a public suffix
    /// unless host-only, IP addresses host-only, the name prefixes, and an expiry in the future
    /// and at most 400 days away (later ones are brought forward).
    func validated(_ cookie: Cookie, now date: Date) -> Cookie? {
        guard !cookie.name.isEmpty, SetCookie.isAllowed(cookie.name), SetCookie.isAllowed(cookie.value),
            !cookie.name.utf8.contains(UInt8(ascii: ";")), !cookie.name.utf8.contains(UInt8(ascii: "=")),
            !cookie.value.utf8.contains(UInt8(ascii: ";")),
            cookie.name.utf8.count + cookie.value.utf8.count <= limits.maximumCookieSize,
            cookie.path.hasPrefix("/"), cookie.path.utf8.count <= SetCookie.maximumAttributeSize,
            SetCookie.isAllowed(cookie.path), !cookie.path.utf8.contains(UInt8(ascii: ";")),
            let host = CookieHost(cookie.domain), host.name == cookie.domain,
            cookie.isHostOnly || (!host.isIPAddress && !suffixes.isPublicSuffix(host.name)),
            (cookie.sameSite?.utf8.count ?? 0) <= SetCookie.maximumAttributeSize, cookie.created <= date
        else { return nil }
        if Self.hasPrefix(cookie.name, "__Secure-") || Self.hasPrefix(cookie.name, "__Host-"), !cookie.isSecure {
            return nil
        }
        if Self.hasPrefix(cookie.name, "__Host-"), !cookie.isHostOnly || cookie.path != "/" { return nil }
        var cookie = cookie
        cookie.isHostOnly = cookie.isHostOnly || host.isIPAddress
        if let expires = cookie.expires {
            guard expires > date else { return nil }
            cookie.expires = min(expires, date.addingTimeInterval(Self.maximumLifetime))
        }
        return cookie
    }

    /// A name prefix, matched ASCII-case-insensitively (RFC 6265bis §4.1.3).
    private static func hasPrefix(_ name: String, _ prefix: String) -> Bool {
        let bytes = name.utf8.prefix(prefix.utf8.count).map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        return bytes.elementsEqual(prefix.lowercased().utf8)
    }

    /// The key a host's cookies are kept under: its registrable domain, or the host itself.
    private func site(of host: CookieHost) -> String {
        host.isIPAddress ? host.name : suffixes.registrableDomain(host.name) ?? host.name
    }

    // MARK: Reading

    /// The cookies that go with a request to `url`, in the order they are sent: longer paths first,
    /// then the earlier created.
    public func cookies(for url: URL) -> [Cookie] {
        guard let host = url.host.flatMap(CookieHost.init) else { return [] }
        let date = now()
        let site = site(of: host)
        let path = CookieRules.requestPath(of: url)
        let isSecure = url.scheme?.lowercased() == "https"
        return storage.withLock { $0.cookies(site: site, host: host, path: path, isSecure: isSecure, now: date) }
    }

    /// The `Cookie` header value for a request to `url`, or `nil` when no cookie goes with it.
    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Every unexpired cookie, in the order first stored.
    public var allCookies: [Cookie] {
        let date = now()
        return storage.withLock { $0.entries }.map(\.entry.cookie).filter { ($0.expires ?? .distantFuture) > date }
    }

    // MARK: Removing

    /// Removes every cookie (and empties the file).
    public func removeAll() {
        storage.withLock { $0.removeAll() }
        persist()
    }

    /// Removes the cookies for which `shouldRemove` is true. `shouldRemove` runs outside the jar's
    /// lock, on a copy: it may use the jar; a cookie replaced meanwhile is kept.
    public func remove(where shouldRemove: (Cookie) -> Bool) {
        let entries = storage.withLock { $0.entries }
        var doomed: [UInt64: Cookie] = [:]
        for (_, entry) in entries where shouldRemove(entry.cookie) { doomed[entry.sequence] = entry.cookie }
        guard !doomed.isEmpty else { return }
        storage.withLock { $0.remove(doomed) }
        persist()
    }

    // MARK: Persistence

    /// Writes the persistent cookies to ``file`` and returns once they are on disk. The jar also
    /// writes after every change, in the background; saves are serialised (one file, one queue),
    /// each writes the jar as it is when its turn comes, so an older state never overwrites a newer.
    ///
    /// - Throws: The file system's error.
    public func save() throws {
        try writer?.save { self.persistentCookies() }
    }

    private func persistentCookies() -> [Cookie] {
        let all = storage.withLock { $0.entries }
        let date = now()
        return all.map(\.entry.cookie).filter { cookie in cookie.expires.map { $0 > date } ?? false }
    }

    private func persist() {
        writer?.schedule { [self] in persistentCookies() }
    }
}
