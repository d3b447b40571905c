import Foundation

/// RFC 6265's path rules: path match and the default path, on UTF-8 bytes (never by Unicode's
/// canonical equivalence, by which `é` and `e` + U+0301 would be the same path).
enum CookieRules {
    /// §5.1.4: the cookie path is the request path, or a prefix of it ending at a `/`.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        let request = requestPath.utf8
        let cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        return request.count == cookie.count || cookie.last == UInt8(ascii: "/")
            || request.dropFirst(cookie.count).first == UInt8(ascii: "/")
    }

    /// The URL's path as cookies see it: percent-encoded, `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4: the request path up to its last `/`, or `/`.
    static func defaultPath(of url: URL) -> String {
        let path = Array(requestPath(of: url).utf8)
        guard path.first == UInt8(ascii: "/"), let last = path.lastIndex(of: UInt8(ascii: "/")), last > 0 else {
            return "/"
        }
        return String(decoding: path[..<last], as: UTF8.self)
    }
}
