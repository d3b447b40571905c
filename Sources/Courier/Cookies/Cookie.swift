import Foundation

/// One cookie as a ``CookieJar`` keeps it (RFC 6265 §5.3).
public struct Cookie: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// The host it was set by (host-only) or the domain it covers: lowercase ASCII (IDNs in
    /// punycode), without a leading or trailing dot; an IP address in its one canonical spelling.
    public var domain: String
    /// Whether it goes only to ``domain`` itself (no `Domain` attribute), not to its subdomains.
    public var isHostOnly: Bool
    /// The path it covers.
    public var path: String
    /// When it expires; `nil` for a session cookie, which is never written to disk.
    public var expires: Date?
    /// Whether it goes only over HTTPS.
    public var isSecure: Bool
    /// Whether the server marked it `HttpOnly` (kept and reported; every use of a jar is HTTP).
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute as sent, if any.
    public var sameSite: String?
    /// When it was first stored (replacing it keeps this).
    public var created: Date

    /// Creates a cookie.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        expires: Date? = nil, isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: String? = nil,
        created: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = String(decoding: domain.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.created = created
    }

    /// Whether the cookie goes with a request to `url` (host, path and scheme), expiry aside.
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host.flatMap(CookieHost.init) else { return false }
        if isSecure, url.scheme?.lowercased() != "https" { return false }
        let domainMatches = isHostOnly || host.isIPAddress ? host.name == domain : host.domainMatches(domain)
        return domainMatches && CookieRules.path(CookieRules.requestPath(of: url), matches: path)
    }
}
