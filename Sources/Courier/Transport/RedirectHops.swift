/// Sees every hop of an exchange that the redirect loop follows, so that a middleware can act per
/// hop (the cookie jar stores each redirect's cookies and sends each hop the cookies of its own URL)
/// while ``RedirectPolicy`` still strips the caller's own secrets on a cross-origin hop.
///
/// A middleware sets ``CallContext/hopObserver`` around its call to `next`; the redirect loop of
/// every Courier transport reads it.
package protocol RedirectHopObserver: Sendable {
    /// The request the loop starts from: the first hop's request without what the observer added
    /// to it (the loop adds it back hop by hop); `nil` when the request is not the one the observer
    /// was set for (another call made on the same task, a token refresh say), which it leaves alone.
    func baseRequest(for request: HTTPRequest) -> HTTPRequest?

    /// What a hop sends: the loop's request (after the redirect policy's stripping) with what the
    /// observer adds for this hop's URL.
    func request(forHop request: HTTPRequest) -> HTTPRequest

    /// A redirect that the loop follows next, and the request that drew it.
    func didReceiveRedirect(_ response: HTTPResponse, to request: HTTPRequest)
}
