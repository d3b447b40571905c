import Foundation

/// How a transport follows redirects. The same rules apply on every platform and every transport.
///
/// - `301`/`302` after `POST` and every `303` continue as `GET` without the body (`HEAD` stays `HEAD`);
///   `307`/`308` keep the method and body, and refuse to carry a body to another origin.
/// - When a redirect changes origin (scheme, host or port), every secret header is removed:
///   `Authorization`, `Proxy-Authorization`, `Cookie`, API-key headers, fields added with
///   `isSensitive: true`, and the names in ``sensitiveHeaders``. Same-origin redirects keep them.
///   Once removed they stay removed, also when a later redirect comes back to the first origin.
/// - HTTPS to HTTP is refused unless ``allowsInsecureRedirects``; schemes other than HTTP(S)
///   (`file:`, `ftp:`, …) are always refused.
/// - A Unix socket URL (`http+unix://%2Frun%2Fapp.sock/…`) is its own origin, the socket path being
///   its host: a relative redirect stays on the socket, one to `http://localhost` leaves the origin.
///   Only a socket URL may redirect to a socket URL.
/// - After ``maximumRedirects`` redirects the exchange fails with ``TransportFailure/tooManyRedirects``.
public struct RedirectPolicy: Sendable, Hashable {
    /// Whether redirects are followed at all; when `false` the 3xx response is returned as it is.
    public var followsRedirects: Bool
    /// How many redirects one exchange may follow.
    public var maximumRedirects: Int
    /// Whether an HTTPS request may be redirected to plain HTTP.
    public var allowsInsecureRedirects: Bool
    /// Header names removed on a cross-origin redirect besides those secret by default.
    public var sensitiveHeaders: Set<HTTPHeaders.Name>

    /// Creates a policy.
    public init(
        followsRedirects: Bool = true,
        maximumRedirects: Int = 10,
        allowsInsecureRedirects: Bool = false,
        sensitiveHeaders: Set<HTTPHeaders.Name> = []
    ) {
        self.followsRedirects = followsRedirects
        self.maximumRedirects = maximumRedirects
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.sensitiveHeaders = sensitiveHeaders
    }

    /// Follows up to 10 redirects, never from HTTPS to HTTP.
    public static let `default` = RedirectPolicy()

    /// Returns every 3xx response as it is.
    public static let never = RedirectPolicy(followsRedirects: false)

    /// The request to send after `response`, or `nil` when `response` is final: the one place
    /// these rules live, for a transport of your own to follow redirects exactly as
    /// ``CurlTransport`` and ``URLSessionTransport`` do.
    ///
    /// Turn the transport's own redirect following off, then loop:
    ///
    /// ```swift
    /// var current = request
    /// var redirects = 0
    /// while true {
    ///     var response = try await sendOnce(current)  // one exchange, no redirect followed
    ///     guard let next = try policy.nextRequest(after: response, to: current, redirectsSoFar: redirects)
    ///     else {
    ///         response.redirectCount = redirects
    ///         return response
    ///     }
    ///     current = next
    ///     redirects += 1
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - response: The response `request` got; only a 301, 302, 303, 307 or 308 with a
    ///     `Location` header leads anywhere.
    ///   - request: The request that got `response` (the last hop's, secrets already removed by
    ///     an earlier cross-origin hop stay removed).
    ///   - redirectsSoFar: How many redirects this exchange followed before `response`.
    /// - Returns: The next hop: its URL resolved against `request`'s, the method and body changed
    ///   as the status says, secret headers removed when it leaves the origin.
    /// - Throws: ``APIError`` with ``TransportFailure/tooManyRedirects``,
    ///   ``TransportFailure/insecureRedirect`` or ``TransportFailure/invalidRedirect``, carrying
    ///   `request` and `response`.
    public func nextRequest(
        after response: HTTPResponse,
        to request: HTTPRequest,
        redirectsSoFar: Int
    ) throws -> HTTPRequest? {
        guard followsRedirects, ResponseFraming.redirectStatuses.contains(response.status.code),
            let location = response.headers[.location]
        else { return nil }
        func refuse(_ failure: TransportFailure, _ message: String) -> APIError {
            APIError(.transport(failure), message: message, request: request, response: response)
        }
        guard let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), let host = target.host, !host.isEmpty
        else {
            throw refuse(.invalidRedirect, "the redirect's Location is not a valid URL")
        }
        let fromScheme = request.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" || UnixSocketURL.isSocketScheme(scheme) else {
            throw refuse(.invalidRedirect, "refused a redirect to a \(scheme): URL")
        }
        // A server on the network never steers a client to a local socket.
        if UnixSocketURL.isSocketScheme(scheme) && !UnixSocketURL.isSocketScheme(fromScheme) {
            throw refuse(.invalidRedirect, "refused a redirect from the network to a Unix socket")
        }
        if !UnixSocketURL.isSecure(scheme) && UnixSocketURL.isSecure(fromScheme) && !allowsInsecureRedirects {
            throw refuse(.insecureRedirect, "refused a redirect from HTTPS to \(Redaction.redact(target))")
        }
        guard redirectsSoFar < maximumRedirects else {
            throw refuse(.tooManyRedirects, "stopped after \(maximumRedirects) redirects")
        }
        var next = request
        next.url = target
        let crossOrigin = Origin(request.url) != Origin(target)
        switch response.status.code {
        case 303 where request.method != .head, 301 where request.method == .post,
            302 where request.method == .post:
            next.method = .get
            next.body = nil
            for name: HTTPHeaders.Name in [.contentType, .contentLength, .contentEncoding] {
                next.headers.remove(name)
            }
        default:
            if case .stream = request.body {
                throw refuse(
                    .invalidRedirect,
                    "refused to follow a \(response.status.code) redirect to \(Redaction.redact(target)): it would send the "
                        + "request body again, and a stream body can be sent once (use a data or file body)")
            }
            if crossOrigin, let body = request.body, !body.isEmpty {
                throw refuse(.invalidRedirect, "refused to send the request body on to another origin")
            }
        }
        if crossOrigin {
            next.headers.removeSensitive()
            for name in sensitiveHeaders { next.headers.remove(name) }
            next.headers.remove(.host)
        }
        return next
    }
}

/// Scheme, host and port: what decides whether a redirect leaves the request's origin.
struct Origin: Equatable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        // A socket path is case-sensitive: /run/A.sock and /run/a.sock are two services.
        host = UnixSocketURL.isSocketScheme(scheme) ? url.host ?? "" : url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }

    /// `scheme://host:port`.
    var description: String { "\(scheme)://\(host):\(port)" }
}
