import Foundation

/// Describes one API call (method, path, query, headers, body) without saying what it returns.
///
/// Every requirement but ``path`` has a default, so a conforming type writes only what differs.
/// An enum with one case per call describes a whole API in one place (the router style):
///
/// ```swift
/// enum Store: Route {
///     case search(term: String, limit: Int)
///     case app(id: Int)
///
///     var path: Path {
///         switch self {
///         case .search: "search"
///         case .app(let id): "apps/\(id)"
///         }
///     }
///
///     var query: Query {
///         switch self {
///         case .search(let term, let limit): ["term": term, "limit": "\(limit)"]
///         case .app: []
///         }
///     }
/// }
///
/// let page = try await client.send(Store.search(term: "rock & roll", limit: 25), as: SearchPage.self)
/// ```
///
/// Use a route when one type describes many calls with different responses; use an ``Endpoint``
/// when the call should name its own response type, so that `send` needs no `as:`.
public protocol Route: Sendable {
    /// What the server sends back on a non-2xx status. The client decodes it (best effort) and
    /// ``APIError/errorBody(as:)-3mtz6`` returns it. ``ServerMessage`` by default, which finds the message
    /// in the shapes most APIs use; an enum router declares one for its whole API.
    associatedtype ErrorBody: ServerErrorBody = ServerMessage
    /// The method; `GET` by default.
    var method: HTTPMethod { get }
    /// The path, appended to the base URL's path. Interpolated values are encoded as one segment.
    var path: Path { get }
    /// The query items, in order; repeated names are allowed. Empty by default.
    var query: Query { get }
    /// Headers for this call; they replace the client's default headers of the same name.
    var headers: HTTPHeaders { get }
    /// The body; none by default.
    var body: RequestBody? { get }
    /// The longest this call may take, overriding the transport's default; `nil` by default.
    var timeout: Duration? { get }
    /// The longest this call may go without a byte moving, overriding the transport's idle timeout;
    /// `nil` by default. Long-lived streams often want a generous one (or a server heartbeat).
    var idleTimeout: Duration? { get }
    /// A base URL that replaces the client's for this call; `nil` by default.
    var baseURL: URL? { get }
    /// The statuses that count as success; `200..<300` by default.
    var acceptableStatuses: AcceptableStatuses { get }
    /// The response content types this call accepts (`application/json`, `image/*`,
    /// `application/*+json`), checked against `Content-Type` before decoding; `nil` (any) by default.
    var acceptableContentTypes: [String]? { get }
    /// Values for the middlewares, by ``RequestPolicyKey``: a middleware of your own defines a key
    /// and reads it from ``HTTPRequest/policies``. None by default.
    var policies: RequestPolicies { get }
    /// Whether the authentication middleware should authenticate this call; what ``policies``
    /// says by default (`true` unless set).
    var requiresAuthentication: Bool { get }
    /// How the retry middleware may retry this call; what ``policies`` says by default (`nil`, the
    /// middleware's default, unless set).
    var retryPolicy: RetryPolicy? { get }
    /// How the response cache may store this call's response; what ``policies`` says by default
    /// (`nil`, the cache's default, unless set).
    var cachePolicy: CachePolicy? { get }
}

extension Route {
    /// `GET`.
    public var method: HTTPMethod { .get }
    /// No query items.
    public var query: Query { [] }
    /// No headers of the route's own.
    public var headers: HTTPHeaders { [:] }
    /// No body.
    public var body: RequestBody? { nil }
    /// The transport's default timeout.
    public var timeout: Duration? { nil }
    /// The transport's idle timeout.
    public var idleTimeout: Duration? { nil }
    /// The client's base URL.
    public var baseURL: URL? { nil }
    /// `200..<300`.
    public var acceptableStatuses: AcceptableStatuses { .success }
    /// Any content type.
    public var acceptableContentTypes: [String]? { nil }
    /// No policies: every key's default.
    public var policies: RequestPolicies { RequestPolicies() }
    /// What ``policies`` says: authenticated unless set.
    public var requiresAuthentication: Bool { policies.requiresAuthentication }
    /// What ``policies`` says: the retry middleware's default unless set.
    public var retryPolicy: RetryPolicy? { policies.retry }
    /// What ``policies`` says: the response cache's default unless set.
    public var cachePolicy: CachePolicy? { policies.cache }
}
