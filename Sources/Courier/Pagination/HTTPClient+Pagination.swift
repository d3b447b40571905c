import Foundation

extension HTTPClient {
    /// Pages by offset and limit, ending at the first page with fewer than `pageSize` items (or
    /// when `total` says every item has been fetched).
    ///
    /// ```swift
    /// let pages = client.pages(pageSize: 25, itemCount: { $0.results.count }, endpoint: { offset, limit in
    ///     ITunesSearchRequest(term: "jack johnson", media: .music, limit: limit, offset: offset)
    /// })
    /// ```
    ///
    /// - Parameters:
    ///   - pageSize: The `limit` of every request.
    ///   - offset: The offset of the first page.
    ///   - itemCount: How many items a page holds.
    ///   - total: How many items there are in all, when the API says.
    ///   - endpoint: The request for an offset and a limit.
    public func pages<E: Endpoint>(
        pageSize: Int,
        startingAt offset: Int = 0,
        itemCount: @escaping @Sendable (E.Response) -> Int,
        total: (@Sendable (E.Response) -> Int?)? = nil,
        endpoint: @escaping @Sendable (_ offset: Int, _ limit: Int) -> E
    ) -> PageSequence<E.Response> {
        let size = max(1, pageSize)
        return PageSequence(first: max(0, offset)) { offset in
            let page = try await send(endpoint(offset, size))
            let count = itemCount(page)
            let next = offset + count
            let atEnd = count < size || total.flatMap { $0(page) }.map { next >= $0 } ?? false
            return (page, atEnd ? nil : next)
        }
    }

    /// Pages by number, ending at the last page the API reports.
    ///
    /// ```swift
    /// let pages = client.pages(totalPages: { $0.totalPages }, endpoint: { PopularMovies(page: $0) })
    /// ```
    ///
    /// - Parameters:
    ///   - first: The number of the first page.
    ///   - totalPages: How many pages there are, as the page says; `nil` ends after this page.
    ///   - endpoint: The request for a page number.
    public func pages<E: Endpoint>(
        numberedFrom first: Int = 1,
        totalPages: @escaping @Sendable (E.Response) -> Int?,
        endpoint: @escaping @Sendable (_ page: Int) -> E
    ) -> PageSequence<E.Response> {
        PageSequence(first: first) { number in
            let page = try await send(endpoint(number))
            let last = totalPages(page) ?? number
            return (page, number < last ? number + 1 : nil)
        }
    }

    /// Pages by an opaque cursor that each page gives for the next, ending when it gives none.
    ///
    /// ```swift
    /// let pages = client.pages(from: Events(after: nil), nextCursor: { $0.next }, endpoint: { Events(after: $0) })
    /// ```
    ///
    /// A cursor the server has already given once ends the sequence, after the page that gave it,
    /// with an ``APIError`` of kind ``APIError/Kind/decoding`` instead of looping.
    public func pages<E: Endpoint, Cursor: Hashable & Sendable>(
        from first: E,
        nextCursor: @escaping @Sendable (E.Response) -> Cursor?,
        endpoint: @escaping @Sendable (Cursor) -> E
    ) -> PageSequence<E.Response> {
        PageSequence(first: PageStep.fetch(CursorState<Cursor>(cursor: nil, seen: []))) { step in
            let state = try step.proceed()
            let page = try await send(state.cursor.map(endpoint) ?? first)
            guard let next = nextCursor(page) else { return (page, nil) }
            guard !state.seen.contains(next) else {
                // This page is good: hand it out, and refuse only the step after it.
                return (
                    page, .refused(APIError(.decoding, message: "the server gave the cursor \"\(next)\" a second time"))
                )
            }
            return (page, .fetch(CursorState(cursor: next, seen: state.seen.union([next]))))
        }
    }
}

/// The cursor to fetch next, and every cursor given so far.
private struct CursorState<Cursor: Hashable & Sendable>: Sendable {
    let cursor: Cursor?
    let seen: Set<Cursor>
}

/// What comes after a page: a fetch, or a step refused (a link off the origin, a repeated cursor)
/// that fails only when the caller asks for the page after the last good one.
enum PageStep<Cursor: Sendable>: Sendable {
    case fetch(Cursor)
    case refused(APIError)

    /// The cursor to fetch with, or the refusal thrown.
    func proceed() throws(APIError) -> Cursor {
        switch self {
        case .fetch(let cursor): return cursor
        case .refused(let error): throw error
        }
    }
}

extension APIClient {
    /// Pages that link to the next one with an RFC 8288 `Link: <…>; rel="next"` header, as GitHub's
    /// API does, ending when a page has none.
    ///
    /// ```swift
    /// let pages = client.pages(following: Request.get("repos/apple/swift/issues", as: [Issue].self))
    /// let same = client.pages(following: GitHub.issues(repo: "apple/swift"), as: [Issue].self)   // a route
    /// ```
    ///
    /// Each next URL is requested as the first request was (method, headers, policies, decoding),
    /// with the URL replaced. A next URL on another origin (scheme, host or port, the rule redirects
    /// follow) ends the sequence, after the page that named it, with an ``APIError`` of kind
    /// ``APIError/Kind/invalidRequest``: credentials are never sent where a header points.
    public func pages<E: Endpoint>(following first: E) -> PageSequence<E.Response> {
        PageSequence(first: PageStep.fetch(LinkedPage(base: first, next: nil))) { step in
            let page = try step.proceed()
            let result = try await response(for: page)
            guard let next = result.response.links["next"] else { return (result.value, nil) }
            let origin = page.baseURL ?? baseURL
            guard Origin(next) == Origin(origin) else {
                let refusal = APIError(
                    .invalidRequest, message: "the next page's link leaves \(Origin(origin))",
                    request: result.request, response: result.response
                )
                return (result.value, .refused(refusal))
            }
            return (result.value, .fetch(LinkedPage(base: first, next: next)))
        }
    }

    /// Pages of a route that link to the next one with a `Link` header, each decoded as `type`.
    public func pages<Value: Decodable & Sendable>(following first: some Route, as type: Value.Type)
        -> PageSequence<Value>
    {
        pages(following: RouteEndpoint(route: first, as: type))
    }
}

/// The first endpoint of a `Link`-paged sequence, or the same call sent to the next page's URL.
struct LinkedPage<Base: Endpoint>: Endpoint {
    typealias Response = Base.Response
    typealias ErrorBody = Base.ErrorBody
    let base: Base
    /// The next page's absolute URL; `nil` for the first page.
    let next: URL?

    var method: HTTPMethod { base.method }
    var path: Path { next == nil ? base.path : "" }
    var query: Query { next == nil ? base.query : [] }
    var headers: HTTPHeaders { base.headers }
    var body: RequestBody? { base.body }
    var timeout: Duration? { base.timeout }
    var idleTimeout: Duration? { base.idleTimeout }
    var baseURL: URL? { next ?? base.baseURL }
    var acceptableStatuses: AcceptableStatuses { base.acceptableStatuses }
    var acceptableContentTypes: [String]? { base.acceptableContentTypes }
    var policies: RequestPolicies { base.policies }
    var requiresAuthentication: Bool { base.requiresAuthentication }
    var retryPolicy: RetryPolicy? { base.retryPolicy }
    var cachePolicy: CachePolicy? { base.cachePolicy }

    func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> Response {
        try base.decode(response, using: decoder)
    }
}
