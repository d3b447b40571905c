import Foundation

/// Describes a WebSocket: the opening handshake's path, query, headers and base URL (a ``Route``'s),
/// plus the subprotocols offered and whether messages may be compressed.
///
/// ```swift
/// struct Chat: WebSocketRoute {
///     let room: String
///     var path: Path { "rooms/\(room)/socket" }
///     var subprotocols: [String] { ["chat.v2"] }
/// }
///
/// let socket = try await client.webSocket(Chat(room: "general"))
/// ```
///
/// The handshake is a `GET` without a body, whatever ``Route/method`` and ``Route/body`` say; it
/// passes the client's middlewares like any call (authentication and its refresh on a `401`,
/// cookies, logging). ``Route/timeout`` bounds the handshake only, up to the server's `101`; the
/// retry middleware may send the handshake again after a failure it retries, never once the
/// socket is open. Use ``socket(_:query:headers:subprotocols:offersCompression:)`` for a socket described inline.
public protocol WebSocketRoute: Route {
    /// The subprotocols offered in `Sec-WebSocket-Protocol`, in order of preference; the server
    /// picks one or none (``WebSocket/subprotocol``). Empty by default.
    var subprotocols: [String] { get }
    /// Whether the handshake offers permessage-deflate (RFC 7692), which the server may accept or
    /// not; `true` by default. Compression saves bandwidth on text and JSON and costs CPU.
    var offersCompression: Bool { get }
}

extension WebSocketRoute {
    /// No subprotocol.
    public var subprotocols: [String] { [] }
    /// Offered.
    public var offersCompression: Bool { true }
}

/// A WebSocket described inline, without declaring a type (see ``WebSocketRoute``).
///
/// ```swift
/// let socket = try await client.webSocket(.socket("chat", query: ["room": "general"], subprotocols: ["chat.v2"]))
/// ```
public struct WebSocketRequest: WebSocketRoute {
    /// The path, relative to the base URL.
    public var path: Path
    /// The query items.
    public var query: Query
    /// The handshake's headers.
    public var headers: HTTPHeaders
    /// The subprotocols offered, in order of preference.
    public var subprotocols: [String]
    /// Whether the handshake offers permessage-deflate.
    public var offersCompression: Bool
    /// The longest the handshake may take, up to the server's `101`.
    public var timeout: Duration?
    /// The base URL for this socket, replacing the client's.
    public var baseURL: URL?
    /// Values for the middlewares, by ``RequestPolicyKey``.
    public var policies = RequestPolicies()

    /// Creates a socket description.
    public init(
        path: Path, query: Query = [], headers: HTTPHeaders = [:], subprotocols: [String] = [],
        offersCompression: Bool = true, timeout: Duration? = nil, baseURL: URL? = nil
    ) {
        self.path = path
        self.query = query
        self.headers = headers
        self.subprotocols = subprotocols
        self.offersCompression = offersCompression
        self.timeout = timeout
        self.baseURL = baseURL
    }
}

extension WebSocketRoute where Self == WebSocketRequest {
    /// A WebSocket on `path`, for ``APIClient/webSocket(_:options:)``.
    public static func socket(
        _ path: Path, query: Query = [], headers: HTTPHeaders = [:], subprotocols: [String] = [],
        offersCompression: Bool = true
    ) -> WebSocketRequest {
        WebSocketRequest(
            path: path, query: query, headers: headers, subprotocols: subprotocols,
            offersCompression: offersCompression)
    }
}

/// A socket's route as the handshake sends it: a `GET` without a body, with the handshake's headers.
struct WebSocketHandshakeRoute<Base: WebSocketRoute>: Route {
    typealias ErrorBody = Base.ErrorBody
    let base: Base
    let handshake: WebSocketHandshake

    var method: HTTPMethod { .get }
    var path: Path { base.path }
    var query: Query { base.query }
    var headers: HTTPHeaders {
        var headers = base.headers
        for field in handshake.requestHeaders { headers.set(field.name, field.value) }
        return headers
    }
    var body: RequestBody? { nil }
    var timeout: Duration? { base.timeout }
    var idleTimeout: Duration? { base.idleTimeout }
    var baseURL: URL? { base.baseURL }
    var acceptableStatuses: AcceptableStatuses { base.acceptableStatuses }
    var policies: RequestPolicies { base.policies }
    var requiresAuthentication: Bool { base.requiresAuthentication }
    var retryPolicy: RetryPolicy? { base.retryPolicy }
    /// Never cached: a handshake's answer is a connection.
    var cachePolicy: CachePolicy? { base.cachePolicy }
}
