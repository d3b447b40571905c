import Foundation

/// The proxy settings checked in Courier before libcurl sees them, and the proxy's secrets kept out
/// of libcurl's error text. libcurl quotes a proxy URL it refuses whole ("Unsupported proxy scheme
/// for 'ftp://user:password@host'"), credentials included, and reports it as a failure to connect
/// (retried); a SOCKS5 user or password longer than RFC 1929's 255 bytes fails on the wire.
enum CurlProxyCheck {
    /// The proxy schemes libcurl speaks, in the spelling Courier documents.
    static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// The environment variables libcurl reads a proxy from.
    static var environmentVariables: [String] { environmentVariableNames.map(\.description) }

    /// The same names as C strings, so that reading them allocates nothing (a `String` passed to
    /// `getenv` is copied to a new C string each time).
    private static let environmentVariableNames: [StaticString] = [
        "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
    ]

    /// The proxy URLs the environment sets, read with `getenv` name by name: cheap enough for every
    /// request (`ProcessInfo`'s `environment` builds a dictionary of every variable each time it is
    /// read: reading it five times per request cost 150 µs of CPU, more than libcurl's whole
    /// request). With none set, nothing is allocated.
    static func environmentProxies() -> [String] {
        var proxies: [String] = []
        for name in environmentVariableNames {
            // A string literal's bytes end with a NUL.
            if let value = getenv(UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) {
                proxies.append(String(cString: value))
            }
        }
        return proxies
    }

    /// Why the configuration's proxy settings cannot be used, or `nil` when they can. The text shows
    /// the proxy URL without its user information.
    static func problem(in configuration: CurlTransport.Configuration) -> String? {
        guard let proxy = configuration.proxy else { return nil }
        let shown = CurlTransport.Configuration.redacted(proxy)
        guard let components = URLComponents(url: proxy, resolvingAgainstBaseURL: false) else {
            return "the proxy URL \(shown) cannot be read"
        }
        let scheme = components.scheme?.lowercased() ?? ""
        guard schemes.contains(scheme) else {
            let known = schemes.sorted().joined(separator: ", ")
            return "the proxy URL \(shown) has scheme '\(scheme)'; a proxy is one of \(known)"
        }
        guard let host = components.host, !host.isEmpty else {
            return "the proxy URL \(shown) has no host"
        }
        if let port = components.port, !(1...65535).contains(port) {
            return "the proxy URL \(shown) has port \(port); a port is 1 to 65535"
        }
        if scheme.hasPrefix("socks5") {
            let user = configuration.proxyCredential?.user ?? components.user ?? ""
            let password = configuration.proxyCredential?.password ?? components.password ?? ""
            if user.utf8.count > 255 || password.utf8.count > 255 {
                return "the SOCKS5 proxy's user name and password are at most 255 bytes each (RFC 1929)"
            }
        }
        return nil
    }

    /// `text` without the user information of the configured proxy, of the environment's proxies
    /// and without the proxy password itself (as written, and percent-encoded).
    static func scrub(
        _ text: String, configuration: CurlTransport.Configuration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        var proxies = environmentVariables.compactMap { environment[$0] }
        if let proxy = configuration.proxy { proxies.append(proxy.absoluteString) }
        var secrets: [String] = []
        for proxy in proxies {
            guard let userInfo = userInfo(of: proxy) else { continue }
            secrets.append(userInfo)
            if let colon = userInfo.firstIndex(of: ":") {
                let password = String(userInfo[userInfo.index(after: colon)...])
                secrets.append(password)
                if let decoded = password.removingPercentEncoding { secrets.append(decoded) }
            }
        }
        if let password = configuration.proxyCredential?.password {
            secrets.append(password)
            // Percent-encoded as RFC 3986 unreserved characters, and as the user information allows.
            let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            for allowed in [unreserved, .urlPasswordAllowed] {
                if let encoded = password.addingPercentEncoding(withAllowedCharacters: allowed) {
                    secrets.append(encoded)
                }
            }
        }
        var scrubbed = text
        // The longest first: a user information contains its password.
        for secret in Set(secrets).sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            scrubbed = scrubbed.replacingOccurrences(of: secret, with: Redactor.placeholder)
        }
        return scrubbed
    }

    /// What comes before the last `@` of a proxy URL's authority (`user:password`), or `nil`.
    static func userInfo(of proxy: String) -> String? {
        let afterScheme = proxy.range(of: "://").map { proxy[$0.upperBound...] } ?? proxy[...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let userInfo = authority[..<at]
        return userInfo.isEmpty ? nil : String(userInfo)
    }

    /// Whether libcurl's text says it could not use a proxy URL (a configuration error, not a
    /// failure to connect: asking again cannot help).
    static func isUnusableProxy(_ text: String) -> Bool {
        // "Unsupported proxy scheme for '…'", "Unsupported proxy syntax in '…'".
        text.hasPrefix("Unsupported proxy")
    }
}
