import Foundation

/// Lets identical `GET` and `HEAD` requests that are in flight at the same time share one exchange.
///
/// ```swift
/// let client = APIClient(baseURL: api, middlewares: [DeduplicationMiddleware(), RetryMiddleware(), …])
/// // 100 views asking for the same page at once: one request reaches the server.
/// ```
///
/// Place it early (after a metrics middleware), so identical calls share everything below it:
/// one retry loop, one credential refresh, one exchange. The middlewares after it then see a
/// single call, and a retry budget counts one failure, not a hundred.
///
/// Requests are identical when they come through the same client, with the same method, URL,
/// policies (an unauthenticated route never shares an authenticated one's response) and every
/// header (credentials included), apart from the names in ``ignoredHeaders``. Placed before the
/// authentication middleware, it cannot see the credential that will be added, so a middleware
/// shared by two clients never merges their requests: two users never share a response. Each
/// caller may cancel on its own and gets `CancellationError` at once; the shared exchange is
/// cancelled only when its last caller leaves. Callers that joined another's exchange see
/// ``APIResponse/attempts`` of zero. Requests with a body, and downloads streamed to disk, are never
/// shared.
public struct DeduplicationMiddleware: Middleware {
    private struct Key: Hashable, Sendable {
        let client: ObjectIdentifier?
        let method: HTTPMethod
        let url: String
        let headers: [String]
        let timeout: Duration?
        let policies: RequestPolicies
        let sensitiveQueryItems: Set<String>
    }

    /// Headers that do not make two requests different, such as a per-request ID.
    public let ignoredHeaders: Set<HTTPHeaders.Name>
    private let inFlight = Coalescer<Key, HTTPResponse>()

    /// Creates a middleware that ignores `ignoredHeaders` when comparing requests.
    public init(ignoredHeaders: Set<HTTPHeaders.Name> = []) {
        self.ignoredHeaders = ignoredHeaders
    }

    /// Joins an identical request in flight, or sends this one and lets later identical ones join it.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        // A streamed body goes to one consumer only, so a streaming call is never shared.
        guard request.method == .get || request.method == .head, request.body == nil, !request.streamsResponse else {
            return try await next(request)
        }
        let headers = request.headers.filter { !ignoredHeaders.contains($0.name) }
            .map { "\($0.name.canonicalName): \($0.value)" }
            .sorted()
        let key = Key(
            client: CallContext.current.scope?.identity, method: request.method, url: request.url.absoluteString,
            headers: headers, timeout: request.timeout, policies: request.policies,
            sensitiveQueryItems: request.sensitiveQueryItems)
        return try await inFlight.value(for: key) { try await next(request) }
    }
}
