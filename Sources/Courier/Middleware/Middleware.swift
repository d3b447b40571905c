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
/// `next` may be called after `intercept` has returned, from another task (a cache refreshing a
/// stale response in the background does): the chain below stays valid for as long as the
/// client's middlewares and transport live. Call it from a detached task (`Task.detached`): such an
/// exchange is no part of the call that started it, so it then sees none of that call's task-local
/// values and is not counted in its ``APIResponse/metrics``; its request's ``HTTPRequest/timeout``
/// is the one the call had. The middleware that starts it owns it: bound how many run, and cancel
/// them when the middleware is released, so none outlives the client (see
/// ``ResponseCacheMiddleware``).
///
/// Errors thrown by `next` are already ``APIError``s (a transport failure stays a transport
/// failure); any other error a middleware throws reaches the caller as
/// ``APIError/Kind/middleware``.
public protocol Middleware: Sendable {
    /// Handles one request, calling `next` to pass it on down the chain.
    func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse
}
