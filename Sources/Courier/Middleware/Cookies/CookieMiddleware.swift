import Foundation

/// Sends a ``CookieJar``'s cookies and stores what the server sets, on every hop of a redirect
/// chain: a `302` with `Set-Cookie` after a login stores the session before the next hop, and
/// each hop carries the cookies of its own URL.
///
/// ```swift
/// let client = APIClient(baseURL: url, middlewares: [CookieMiddleware(jar: jar), ResponseCacheMiddleware(cache: cache)])
/// ```
///
/// A `Cookie` header the caller sets is kept and sent first; like every secret header it is
/// dropped on a redirect to another origin (the jar's cookies go wherever their domain and path
/// match). Jar cookies travel in the `Cookie` header the middlewares after this one see, so the
/// response cache and deduplication count them as the credentials they are (place this middleware
/// before them), and logs redact them.
public struct CookieMiddleware: Middleware {
    /// The jar cookies are read from and stored in.
    public let jar: CookieJar

    /// Creates the middleware.
    public init(jar: CookieJar) {
        self.jar = jar
    }

    /// Adds the jar's cookies, sends the request, and stores the cookies the response sets.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var hops = JarHops(jar: jar, ownCookie: request.headers[.cookie], firstHop: request)
        let first = hops.request(forHop: request)
        hops.firstHop = first
        var context = CallContext.current
        context.hopObserver = hops
        let response = try await CallContext.$current.withValue(context) { try await next(first) }
        jar.store(from: response, for: response.url ?? request.url)
        return response
    }
}

/// One call's hops as the jar sees them.
private struct JarHops: RedirectHopObserver {
    let jar: CookieJar
    /// The caller's own `Cookie` header, if any.
    let ownCookie: String?
    /// The request as this middleware passed it on: the exchange the observer is for.
    var firstHop: HTTPRequest

    func baseRequest(for request: HTTPRequest) -> HTTPRequest? {
        guard request.url == firstHop.url, request.headers[.cookie] == firstHop.headers[.cookie] else { return nil }
        var base = request
        if let ownCookie { base.headers[.cookie] = ownCookie } else { base.headers.remove(.cookie) }
        return base
    }

    func request(forHop request: HTTPRequest) -> HTTPRequest {
        // What is left of the caller's own header after the redirect policy (none after a
        // cross-origin hop), then the jar's cookies for this hop's URL.
        let parts = [request.headers[.cookie], jar.cookieHeader(for: request.url)].compactMap { $0 }
        guard !parts.isEmpty else { return request }
        var hop = request
        hop.headers[.cookie] = parts.joined(separator: "; ")
        return hop
    }

    func didReceiveRedirect(_ response: HTTPResponse, to request: HTTPRequest) {
        jar.store(from: response, for: request.url)
    }
}
