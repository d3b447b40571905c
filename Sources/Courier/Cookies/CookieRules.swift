import Foundation

/// RFC 6265's matching rules: domain match, path match, the default path, and which hosts are IP
/// addresses.
enum CookieRules {
    /// §5.1.3: the host is the domain, or a name (not an IP address) ending in `.domain`.
    static func domain(_ host: String, matches domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !isIPAddress(host))
    }

    /// §5.1.4: the cookie path is the request path, or a prefix of it ending at a `/`.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// The URL's path as cookies see it: percent-encoded, `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4: the request path up to its last `/`, or `/`.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// An IPv4 address in dotted form, or an IPv6 address (any host with a colon).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy {
                !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber)
            }
    }
}
