import Foundation

/// What callers depend on to make API calls, so that tests and previews can swap the real client
/// for a double.
///
/// ```swift
/// final class SearchViewModel {
///     let client: any HTTPClient
///     init(client: any HTTPClient) { self.client = client }
///     func search(_ term: String) async throws -> SearchPage {
///         try await client.send(SearchSongs(term: term))
///     }
/// }
/// ```
///
/// ``APIClient`` is the implementation. A conforming type implements ``send(_:)``; the route form
/// and the completion-handler form come with the protocol.
public protocol HTTPClient: Sendable {
    /// Sends the endpoint's request and returns its decoded response.
    ///
    /// - Throws: ``APIError``, or `CancellationError` when the calling task is cancelled.
    func send<E: Endpoint>(_ endpoint: E) async throws -> E.Response
}

extension HTTPClient {
    /// Sends a route and decodes its response as `type` (see ``Endpoint`` for the decoding defaults).
    ///
    /// ```swift
    /// let page = try await client.send(Store.search(term: "rock", limit: 25), as: SearchPage.self)
    /// ```
    public func send<Value: Decodable & Sendable>(_ route: some Route, as type: Value.Type) async throws -> Value {
        try await send(RouteEndpoint(route: route, as: type))
    }
}

/// A route sent with `send(_:as:)`, made into an endpoint.
struct RouteEndpoint<Base: Route, Response: Decodable & Sendable>: Endpoint {
    typealias ErrorBody = Base.ErrorBody
    let route: Base

    init(route: Base, as type: Response.Type) {
        self.route = route
    }

    var method: HTTPMethod { route.method }
    var path: Path { route.path }
    var query: Query { route.query }
    var headers: HTTPHeaders { route.headers }
    var body: RequestBody? { route.body }
    var timeout: Duration? { route.timeout }
    var idleTimeout: Duration? { route.idleTimeout }
    var baseURL: URL? { route.baseURL }
    var acceptableStatuses: AcceptableStatuses { route.acceptableStatuses }
    var acceptableContentTypes: [String]? { route.acceptableContentTypes }
    var policies: RequestPolicies { route.policies }
    var requiresAuthentication: Bool { route.requiresAuthentication }
    var retryPolicy: RetryPolicy? { route.retryPolicy }
    var cachePolicy: CachePolicy? { route.cachePolicy }
}
