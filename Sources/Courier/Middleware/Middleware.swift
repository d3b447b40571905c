/// A step between the client and the transport that may change the request, the response, or both.
///
/// Middlewares run in array order on the way out and in reverse order on the way back. One may
/// call `next` zero times (answer from a cache), once, or several times (retry, refresh a token and
/// replay).
///
/// ```swift
/// struct RequestID: Middleware {
///     func intercept(
///         _ request: HTTPRequest,
///         next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
///     ) async throws -> HTTPResponse {
///         var request = request
///         request.headers[.init("X-Request-ID")] = UUID().uuidString
///         return try await next(request)
///     }
/// }
/// ```
///
/// Errors thrown by `next` are already ``APIError``s (a transport failure stays a transport
/// failure); any other error a middleware throws reaches the caller as
/// ``APIError/Kind/middleware``.
///
/// ## What a middleware may rely on
///
/// - **One call, one chain.** Each call through ``APIClient`` runs the chain in a context of its
///   own: nothing of the task that made the call leaks into it. A call a middleware makes itself
///   (a token refresh through another client, or through the same one) is a call of its own, with
///   its own record, and never writes into the first call's stream, file or progress.
/// - **Facts on the values.** ``HTTPRequest/streamsResponse`` says the response's body goes to
///   the caller as it arrives (a stream, a download): keep or share nothing of it, as the cache and
///   deduplication do. ``HTTPRequest/mayBeSentAgain`` says whether another attempt is still allowed:
///   once a stream's head reached its caller it is not, and calling `next` again fails with
///   ``APIError/Kind/middleware``. A streamed response has an empty ``HTTPResponse/body`` and its
///   size in ``HTTPResponse/streamedBodyBytes``.
/// - **`next` after `intercept` returns.** `next` may be called later, from another task (a cache
///   refreshing a stale response in the background): the chain below stays valid for as long as
///   the client's middlewares and transport live. Such an exchange is no part of the call that
///   started it, once that call has returned or when it runs in a detached task: it counts in
///   none of the call's ``APIResponse/metrics`` and streams nowhere; its request's
///   ``HTTPRequest/timeout`` is the one the call had. The middleware that starts it owns it: bound
///   how many run, and cancel them when the middleware is released, so none outlives the client
///   (see ``ResponseCacheMiddleware``).
/// - **Concurrency.** `intercept` runs concurrently for concurrent calls; keep shared state behind
///   a lock (Courier's own use `Locked`) and never hold it across an `await`.
public protocol Middleware: Sendable {
    /// Handles one request, calling `next` to pass it on down the chain.
    func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse
}
