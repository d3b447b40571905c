import Foundation

/// A secret that authenticates requests, and where in the request it goes.
///
/// ```swift
/// Credential.bearer(token, expiresAt: expiry)               // Authorization: Bearer …
/// Credential.apiKey(key, queryItem: "api_key")               // ?api_key=… (TMDB v3)
/// Credential.apiKey(key, header: "X-Api-Key")                // X-Api-Key: …
/// Credential.basic(username: "ada", password: "lovelace")    // Authorization: Basic …
/// ```
///
/// Headers a credential sets are marked sensitive, and query items it sets are named in
/// ``HTTPRequest/sensitiveQueryItems``, whatever their name: both are redacted in logs, cURL
/// renderings and error descriptions, and count as credentials for the cache.
public struct Credential: Sendable, Hashable {
    /// Where the secret goes in a request.
    public enum Placement: Sendable, Hashable {
        /// In a header, after an optional scheme word: `Authorization: Bearer <secret>`.
        case header(HTTPHeaders.Name, scheme: String?)
        /// In a query item of this name, replacing any item of the same name.
        case query(String)
    }

    /// The secret itself.
    public var secret: String
    /// Where it goes.
    public var placement: Placement
    /// When it stops being valid, if known; the middleware refreshes it shortly before.
    public var expiresAt: Date?

    /// Creates a credential.
    public init(secret: String, placement: Placement, expiresAt: Date? = nil) {
        self.secret = secret
        self.placement = placement
        self.expiresAt = expiresAt
    }

    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String, expiresAt: Date? = nil) -> Credential {
        Credential(secret: token, placement: .header(.authorization, scheme: "Bearer"), expiresAt: expiresAt)
    }

    /// An API key in a header, `X-Api-Key` unless named otherwise.
    public static func apiKey(_ key: String, header: HTTPHeaders.Name = "X-Api-Key") -> Credential {
        Credential(secret: key, placement: .header(header, scheme: nil))
    }

    /// An API key in a query item, such as TMDB's `api_key`.
    public static func apiKey(_ key: String, queryItem name: String) -> Credential {
        Credential(secret: key, placement: .query(name))
    }

    /// HTTP Basic: `Authorization: Basic base64(username:password)`.
    public static func basic(username: String, password: String) -> Credential {
        let encoded = Data("\(username):\(password)".utf8).base64EncodedString()
        return Credential(secret: encoded, placement: .header(.authorization, scheme: "Basic"))
    }

    /// Whether the credential has expired, or will within `margin` of `now`.
    public func expires(within margin: Duration, of now: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= margin.timeInterval
    }

    /// The request with this credential in place of any earlier one.
    public func authenticate(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        switch placement {
        case .header(let name, let scheme):
            request.headers.set(name, scheme.map { "\($0) \(secret)" } ?? secret, isSensitive: true)
        case .query(let name):
            request.url = Self.url(request.url, setting: name, to: secret)
            request.sensitiveQueryItems.insert(name)
        }
        return request
    }

    private static func url(_ url: URL, setting name: String, to value: String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let encodedName = PercentEncoding.encode(name)
        var items = (components.percentEncodedQuery ?? "").split(separator: "&").map(String.self.init)
        items.removeAll { item in
            let itemName = item.split(separator: "=", maxSplits: 1).first.map(String.init) ?? item
            return (itemName.removingPercentEncoding ?? itemName) == name
        }
        items.append("\(encodedName)=\(PercentEncoding.encode(value))")
        components.percentEncodedQuery = items.joined(separator: "&")
        return components.url ?? url
    }
}
