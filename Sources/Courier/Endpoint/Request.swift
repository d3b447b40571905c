import Foundation

/// An endpoint defined inline, without declaring a type: a route plus the response it decodes to.
///
/// ```swift
/// let page = try await client.send(.get("search", query: ["term": "jack johnson"], as: SearchPage.self))
/// let created = try await client.send(.post("comments", body: NewComment(text: "Hi"), as: Comment.self))
/// let raw: Data = try await client.send(.get("avatar.png", as: Data.self))
/// ```
public struct Request<Response: Sendable>: Endpoint {
    /// The method.
    public var method: HTTPMethod
    /// The path, relative to the base URL.
    public var path: Path
    /// The query items.
    public var query: Query
    /// The headers.
    public var headers: HTTPHeaders
    /// The body.
    public var body: RequestBody?
    /// The timeout for this call.
    public var timeout: Duration?
    /// The idle timeout for this call (see ``Route/idleTimeout``).
    public var idleTimeout: Duration?
    /// The base URL for this call, replacing the client's.
    public var baseURL: URL?
    /// Values for the middlewares, by ``RequestPolicyKey`` (see ``policy(_:_:)``).
    public var policies = RequestPolicies()
    /// Whether the authentication middleware authenticates this call; `true` unless changed.
    public var requiresAuthentication: Bool {
        get { policies.requiresAuthentication }
        set { policies.requiresAuthentication = newValue }
    }
    /// How the retry middleware may retry this call, or `nil` for its default.
    public var retryPolicy: RetryPolicy? {
        get { policies.retry }
        set { policies.retry = newValue }
    }
    /// How the response cache may store this call's response, or `nil` for its default.
    public var cachePolicy: CachePolicy? {
        get { policies.cache }
        set { policies.cache = newValue }
    }

    private let decodeResponse: @Sendable (HTTPResponse, JSONDecoder) throws -> Response

    /// Creates a request that decodes its response with a closure of your own.
    public init(
        method: HTTPMethod = .get,
        path: Path,
        query: Query = [],
        headers: HTTPHeaders = [:],
        body: RequestBody? = nil,
        timeout: Duration? = nil,
        baseURL: URL? = nil,
        decode: @escaping @Sendable (HTTPResponse, JSONDecoder) throws -> Response
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.baseURL = baseURL
        self.decodeResponse = decode
    }

    /// The same request with other middleware policies.
    ///
    /// ```swift
    /// let config = Request.get("configuration", as: Configuration.self)
    ///     .policies(cache: .timeToLive(.seconds(3600)))
    /// let health = Request.get("health", as: Data.self).policies(requiresAuthentication: false, retry: .never)
    /// ```
    public func policies(
        requiresAuthentication: Bool? = nil,
        retry: RetryPolicy? = nil,
        cache: CachePolicy? = nil
    ) -> Request {
        var copy = self
        copy.requiresAuthentication = requiresAuthentication ?? copy.requiresAuthentication
        copy.retryPolicy = retry ?? copy.retryPolicy
        copy.cachePolicy = cache ?? copy.cachePolicy
        return copy
    }

    /// The same request with `key` set to `value`, for a middleware that reads it.
    ///
    /// ```swift
    /// let invoices = Request.get("invoices", as: [Invoice].self).policy(TenantKey.self, "acme")
    /// ```
    public func policy<Key: RequestPolicyKey>(_ key: Key.Type, _ value: Key.Value) -> Request {
        var copy = self
        copy.policies[key] = value
        return copy
    }

    /// Decodes with the closure given at creation.
    public func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> Response {
        try decodeResponse(response, decoder)
    }
}

extension Request where Response: Decodable {
    /// Creates a request whose response is decoded by the ``Endpoint`` defaults.
    public init(
        method: HTTPMethod = .get,
        path: Path,
        query: Query = [],
        headers: HTTPHeaders = [:],
        body: RequestBody? = nil,
        timeout: Duration? = nil,
        baseURL: URL? = nil,
        as type: Response.Type = Response.self
    ) {
        self.init(
            method: method, path: path, query: query, headers: headers, body: body, timeout: timeout,
            baseURL: baseURL
        ) { response, decoder in
            try ResponseDecoding.decode(Response.self, from: response, using: decoder)
        }
    }
}

extension Route {
    /// A `GET` request decoding to `type`.
    public static func get<Value: Decodable & Sendable>(
        _ path: Path,
        query: Query = [],
        headers: HTTPHeaders = [:],
        as type: Value.Type
    ) -> Self where Self == Request<Value> {
        Request(method: .get, path: path, query: query, headers: headers, as: type)
    }

    /// A `POST` request with a JSON body, decoding to `type`.
    public static func post<Value: Decodable & Sendable>(
        _ path: Path,
        body: some Encodable & Sendable,
        query: Query = [],
        headers: HTTPHeaders = [:],
        as type: Value.Type
    ) -> Self where Self == Request<Value> {
        withJSONBody(.post, path, body, query, headers, type)
    }

    /// A `PUT` request with a JSON body, decoding to `type`.
    public static func put<Value: Decodable & Sendable>(
        _ path: Path,
        body: some Encodable & Sendable,
        query: Query = [],
        headers: HTTPHeaders = [:],
        as type: Value.Type
    ) -> Self where Self == Request<Value> {
        withJSONBody(.put, path, body, query, headers, type)
    }

    /// A `PATCH` request with a JSON body, decoding to `type`.
    public static func patch<Value: Decodable & Sendable>(
        _ path: Path,
        body: some Encodable & Sendable,
        query: Query = [],
        headers: HTTPHeaders = [:],
        as type: Value.Type
    ) -> Self where Self == Request<Value> {
        withJSONBody(.patch, path, body, query, headers, type)
    }

    private static func withJSONBody<Value: Decodable & Sendable>(
        _ method: HTTPMethod,
        _ path: Path,
        _ body: some Encodable & Sendable,
        _ query: Query,
        _ headers: HTTPHeaders,
        _ type: Value.Type
    ) -> Request<Value> {
        Request(method: method, path: path, query: query, headers: headers, body: .json(body), as: type)
    }

    /// A `DELETE` request, decoding to `type`.
    public static func delete<Value: Decodable & Sendable>(
        _ path: Path,
        query: Query = [],
        headers: HTTPHeaders = [:],
        as type: Value.Type
    ) -> Self where Self == Request<Value> {
        Request(method: .delete, path: path, query: query, headers: headers, as: type)
    }

    /// A `DELETE` request whose answer has no body that matters.
    public static func delete(
        _ path: Path,
        query: Query = [],
        headers: HTTPHeaders = [:]
    ) -> Self where Self == Request<EmptyResponse> {
        Request(method: .delete, path: path, query: query, headers: headers, as: EmptyResponse.self)
    }

    /// A `HEAD` request: only the status and headers matter.
    public static func head(
        _ path: Path,
        query: Query = [],
        headers: HTTPHeaders = [:]
    ) -> Self where Self == Request<EmptyResponse> {
        Request(method: .head, path: path, query: query, headers: headers, as: EmptyResponse.self)
    }
}
