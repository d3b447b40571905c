import Foundation

/// One HTTP request as middlewares and transports see it: fully built, with an absolute URL.
///
/// ``APIClient`` builds it from a ``Route``; a middleware may change it before passing it on.
public struct HTTPRequest: Sendable, Hashable, CustomStringConvertible {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields, in order.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: HTTPBody?
    /// The longest this exchange may take from start to last byte, redirects included, or `nil`
    /// for the transport's own default. Unlike URLSession's idle timeout, this is a hard deadline.
    public var timeout: Duration?
    /// The longest the exchange may go without a byte moving, or `nil` for the transport's own
    /// ``CurlTransport/Configuration/idleTimeout`` or ``URLSessionTransport/Configuration/idleTimeout``.
    /// A stream that the caller stops reading is paused, not idle.
    public var idleTimeout: Duration?
    /// What the route declared for the middlewares: authentication, retry and cache policies.
    public var policies: RequestPolicies
    /// Names of query items that carry a credential whatever they are called (`appid`, `k`):
    /// redacted wherever Courier prints the request, as names with a secret word always are, and
    /// counted as credentials by the cache. ``Credential`` adds the name of the item it sets.
    public var sensitiveQueryItems: Set<String>
    /// Whether the response's body goes, as it arrives, to whoever made the call (a stream, a
    /// download's file, the image loader), or the request opens a WebSocket (its `101` hands over
    /// the connection), instead of into ``HTTPResponse/body``. A middleware that
    /// keeps or shares bodies (a cache, deduplication) leaves such a request alone; the response
    /// then says how much went by in ``HTTPResponse/streamedBodyBytes``. It is the call's, not the
    /// value's: a request a middleware rebuilds from its parts says the same. Read it inside the
    /// chain, while the call runs.
    public var streamsResponse: Bool {
        CallContext.current.consumer != nil || CallContext.current.upgrade != nil
    }

    /// Whether this request may be sent again in the call it belongs to: `false` once the call's
    /// response started reaching its caller (a stream's head was handed over), when another attempt
    /// would splice two responses into one, and `false` once its body stream (``HTTPBody/stream(_:)``)
    /// was sent, as a stream can be read once. A middleware that retries or replays (after a refresh,
    /// a redirect of its own) asks this first; sending it anyway fails with
    /// ``APIError/Kind/middleware`` (a stream's head handed over) or ``APIError/Kind/invalidRequest``
    /// (a body stream sent already). Read it inside the chain, while the call runs.
    public var mayBeSentAgain: Bool {
        if case .stream(let stream) = body, stream.hasBeenSent { return false }
        return !(CallContext.current.consumer?.hasHandedOverHead ?? false)
    }

    /// Creates a request.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = [:],
        body: HTTPBody? = nil,
        timeout: Duration? = nil,
        idleTimeout: Duration? = nil,
        policies: RequestPolicies = RequestPolicies(),
        sensitiveQueryItems: Set<String> = []
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.idleTimeout = idleTimeout
        self.policies = policies
        self.sensitiveQueryItems = sensitiveQueryItems
    }

    /// The method and the URL, secret query values redacted: `GET https://host/path?api_key=REDACTED`.
    public var description: String {
        "\(method) \(Redaction.redact(urlOf: self))"
    }
}
