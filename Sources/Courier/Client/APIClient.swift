import Foundation

/// Sends endpoints and routes: builds each request, passes it through the middlewares to the
/// transport, validates the status and decodes the response.
///
/// ```swift
/// let client = APIClient(baseURL: URL(string: "https://itunes.apple.com")!)
/// let page = try await client.send(SearchSongs(term: "jack johnson"))
/// let same = try await client.send(.get("search", query: [.init(name: "term", value: "jack johnson")],
///                                       as: SearchPage.self))
/// ```
///
/// The client is an immutable `Sendable` value: share one across tasks. Decoding runs on the task
/// that calls `send`, never on a main actor or a shared queue, so concurrent calls decode in parallel.
public struct APIClient: HTTPClient {
    /// The URL that route paths are appended to.
    public let baseURL: URL
    /// The transport that performs each exchange.
    public let transport: any HTTPTransport
    /// The middlewares, outermost first.
    public let middlewares: [any Middleware]
    /// Decodes JSON responses and error bodies.
    public let decoder: JSONDecoder
    /// Encodes JSON request bodies.
    public let encoder: JSONEncoder
    /// Headers sent with every request unless the route sets the same name.
    public let headers: HTTPHeaders
    /// How many ``send(_:)`` calls may be past the client's door at once (building, the middlewares,
    /// the transport, decoding); the others wait in order, their timeout running. `nil`: no limit.
    ///
    /// A waiting call holds only its task, so 10,000 calls started at once cost a few MB more
    /// than 10,000 suspended tasks. A call made while a request of this same client is inside its
    /// middleware chain (a middleware's own call, a token refresh through the same client) never
    /// waits, so a full client cannot deadlock on itself. Streams, downloads, uploads and event
    /// sources do not count: they may stay open for as long as their caller reads.
    public var maximumConcurrentRequests: Int? { admission?.limit }
    /// Holds the calls beyond ``maximumConcurrentRequests``.
    package let admission: AdmissionGate?
    /// What a waiting call without a timeout of its own counts against: the transport's default,
    /// or URLSession's 60 seconds for a transport that does not say (a test double, a custom one).
    private let defaultTimeout: Duration
    /// `baseURL`, taken apart once.
    let base: BaseURL
    /// This client's identity for middlewares shared between clients.
    let scope = ClientScope()

    /// The headers sent by default: `Accept: application/json` and a `User-Agent` naming Courier.
    public static let defaultHeaders: HTTPHeaders = [
        .accept: "application/json",
        .userAgent: "Courier/\(CourierVersion.current)",
    ]

    /// The default ``maximumConcurrentRequests``: 256, as many as ``CurlTransport`` hands libcurl
    /// at once by default.
    public static let defaultMaximumConcurrentRequests = 256

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - baseURL: The absolute http(s) URL that route paths are appended to (`ws` and `wss` are
    ///     read as `http` and `https`, so one base URL serves a service's calls and sockets).
    ///   - transport: What performs each exchange; a new ``defaultTransport()`` by default
    ///     (``CurlTransport`` on Linux, ``URLSessionTransport`` on Apple platforms).
    ///   - middlewares: Applied in this order to requests, and in reverse to responses.
    ///   - decoder: Decodes JSON responses.
    ///   - encoder: Encodes JSON bodies.
    ///   - headers: Sent with every request unless the route sets the same name.
    ///   - maximumConcurrentRequests: How many calls may run at once, the rest waiting in order;
    ///     `nil` for no limit. See ``maximumConcurrentRequests``.
    public init(
        baseURL: URL,
        transport: any HTTPTransport = APIClient.defaultTransport(),
        middlewares: [any Middleware] = [],
        decoder: JSONDecoder = JSONDecoder(),
        encoder: JSONEncoder = JSONEncoder(),
        headers: HTTPHeaders = APIClient.defaultHeaders,
        maximumConcurrentRequests: Int? = APIClient.defaultMaximumConcurrentRequests
    ) {
        self.baseURL = baseURL
        self.base = BaseURL(baseURL)
        self.transport = transport
        self.middlewares = middlewares
        self.decoder = decoder
        self.encoder = encoder
        self.headers = headers
        self.admission = maximumConcurrentRequests.map { AdmissionGate(limit: $0) }
        self.defaultTimeout = (transport as? any HTTPTimeoutDefaulting)?.defaultTimeout ?? .seconds(60)
    }

    /// Sends the endpoint's request and returns its decoded response.
    ///
    /// - Throws: ``APIError``, or `CancellationError` when the calling task is cancelled.
    public func send<E: Endpoint>(_ endpoint: E) async throws -> E.Response {
        try await response(for: endpoint).value
    }

    /// Sends the endpoint's request and returns its decoded response together with the
    /// ``HTTPResponse``, the request as finally sent, the number of attempts and the time taken.
    ///
    /// - Throws: ``APIError``, or `CancellationError` when the calling task is cancelled.
    public func response<E: Endpoint>(for endpoint: E) async throws -> APIResponse<E.Response> {
        try await response(for: endpoint, options: CallOptions())
    }

    /// ``response(for:)`` with what the caller asks of the call besides its route: where its body
    /// goes (a download's file, the image loader) and who watches its upload.
    package func response<E: Endpoint>(for endpoint: E, options: CallOptions) async throws
        -> APIResponse<E.Response>
    {
        let admission = try await admit(endpoint)
        defer { admission.slot?.leave() }
        return try await buildSendAndDecode(endpoint, timeLeft: admission.timeLeft, options: options)
    }

    /// Builds, sends and decodes, once admitted. A separate function so a call waiting for a slot
    /// holds only the small frame above, not this one's.
    private func buildSendAndDecode<E: Endpoint>(_ endpoint: E, timeLeft: Duration?, options: CallOptions) async throws
        -> APIResponse<E.Response>
    {
        var (request, temporaryFile) = try RequestBuilder.makeRequest(
            for: endpoint, baseURL: base, defaultHeaders: headers, encoder: encoder
        )
        if E.Response.self == Data.self || E.Response.self == String.self {
            RequestBuilder.acceptAnyType(&request, route: endpoint, clientHeaders: headers)
        }
        defer {
            if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
        }
        if let timeLeft { request.timeout = timeLeft }
        let record = ExchangeRecord(request)
        let response = try await runChain(request, record: record, options: options)
        let sent = record.lastRequest
        guard endpoint.acceptableStatuses.contains(response.status) else {
            let body =
                LoopThreadHop.shouldMove(size: response.body.count, transport: transport)
                ? try? await LoopThreadHop.runOnPool { try decoder.decode(E.ErrorBody.self, from: response.body) }
                : try? decoder.decode(E.ErrorBody.self, from: response.body)
            throw APIError(
                .unacceptableStatus(response.status), message: "the server answered \(response.status)",
                request: sent, response: response, errorBody: body
            )
        }
        try ContentTypeCheck.verify(response, accepts: endpoint.acceptableContentTypes, request: sent)
        let value =
            LoopThreadHop.shouldMove(size: response.body.count, transport: transport)
            ? try await LoopThreadHop.runOnPool { try decode(response, for: endpoint, request: sent) }
            : try decode(response, for: endpoint, request: sent)
        return APIResponse(
            value: value, response: response, request: sent, metrics: record.metrics(status: response.status)
        )
    }

    /// Waits for a slot of ``maximumConcurrentRequests``, unless there is no limit or this call is
    /// made from inside this client's own chain (then `slot` is `nil`). A call that waited goes on
    /// with `timeLeft`, what is left of its timeout; one whose timeout ran out while it waited fails
    /// with ``TransportFailure/deadlineExceeded``.
    func admit(_ route: some Route) async throws -> (slot: AdmissionGate?, timeLeft: Duration?) {
        guard let admission, CallContext.current.scope !== scope else { return (nil, nil) }
        let timeout = route.timeout ?? defaultTimeout
        let start = ContinuousClock.now
        do {
            guard try await admission.enter(deadline: start + timeout) else { return (admission, nil) }
        } catch is AdmissionGate.Expired {
            throw APIError(
                .transport(.deadlineExceeded),
                message: "no response within \(DurationText.seconds(timeout)): the call was still waiting behind "
                    + "the client's \(admission.limit) requests in flight",
                request: RequestBuilder.bareRequest(for: route, baseURL: base))
        }
        return (admission, max(.milliseconds(1), timeout - (ContinuousClock.now - start)))
    }

    private func decode<E: Endpoint>(_ response: HTTPResponse, for endpoint: E, request: HTTPRequest) throws
        -> E.Response
    {
        do {
            return try endpoint.decode(response, using: decoder)
        } catch let error as APIError {
            throw error.attaching(request: request, response: response)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let message = DecodingDiagnosis.describe(
                error, decoding: String(describing: E.Response.self), body: response.body
            )
            throw APIError(
                .decoding, message: message, request: request, response: response, underlyingError: error
            )
        }
    }

    /// Runs the request through the middlewares, outermost first, down to the transport, in a
    /// fresh ``CallContext``: this client's scope, `record`, and what `options` ask for; nothing of
    /// the calling task's own call.
    func runChain(_ request: HTTPRequest, record: ExchangeRecord, options: CallOptions = CallOptions())
        async throws -> HTTPResponse
    {
        let transport = self.transport
        let scope = self.scope
        var next: @Sendable (HTTPRequest) async throws -> HTTPResponse = { request in
            // `next` called after the call returned, or from a detached task (a middleware's
            // background work), is work of its own: no record, no stream, no meter of the call's.
            guard CallContext.current.record === record, !record.isClosed else {
                return try await CallContext.$current.withValue(CallContext(scope: scope)) {
                    try await TransportCall.send(request, through: transport)
                }
            }
            record.willSend(request)
            let response = try await TransportCall.send(request, through: transport)
            record.didReceive(response)
            return response
        }
        for middleware in middlewares.reversed() {
            let inner = next
            next = { request in
                try await MiddlewareCall.intercept(request, with: middleware, next: inner)
            }
        }
        let context = CallContext(
            scope: scope, record: record, consumer: options.consumer, uploadMeter: options.uploadMeter,
            upgrade: options.upgrade)
        defer { record.close() }
        return try await CallContext.$current.withValue(context) { try await next(request) }
    }
}
