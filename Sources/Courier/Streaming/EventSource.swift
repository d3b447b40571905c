import Foundation

/// A Server-Sent Events source that stays connected: when the connection drops or ends it
/// reconnects after the server's `retry` (3 seconds until it says, never less than half a second),
/// sending `Last-Event-ID`, and backs off with jitter while connections keep failing, from a second
/// up to a minute, however small the server's `retry` (see ``EventSourceOptions``).
///
/// ```swift
/// for try await event in client.events(Feed.updates) {
///     print(event.type, event.data)
/// }
/// ```
///
/// It ends (returns `nil`) when the server answers `204 No Content`; it throws on a status that is
/// not retryable (``EventSourceOptions/retryableStatuses``), on a `Content-Type` other than
/// `text/event-stream`, on a failure that reconnecting cannot mend (TLS, an invalid request), after
/// ``EventSourceOptions/maximumConsecutiveFailures`` (by default it never gives up on a failure that
/// reconnecting may mend, as browsers do), and with `CancellationError` when the reading task is
/// cancelled. Each connection goes through the client's middlewares, so authentication and
/// logging apply to every reconnection. Connecting waits for the first `next()`.
public struct EventSource: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent

    /// Opens one connection, sending the last event ID when there is one.
    let connect: @Sendable (_ lastEventID: String) async throws -> ResponseStream
    let options: EventSourceOptions
    /// Waits between connections (tests record the waits instead).
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// Draws the backoff's jitter, from 0 to 1.
    var jitter: @Sendable () -> Double = { Double.random(in: 0...1) }
    /// The wall clock a `Retry-After` date is read against.
    var now: @Sendable () -> Date = { Date() }

    /// Reads events, reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: EventSource
        var connection: ResponseStream.AsyncIterator?
        var parser: ServerSentEventParser
        var ready: [ServerSentEvent] = []
        var nextReady = 0
        var isFinished = false
        /// Connections in a row that failed or brought no event.
        var failures = 0
        var eventsOnThisConnection = 0
        var wait: Duration?

        init(source: EventSource) {
            self.source = source
            parser = ServerSentEventParser(maximumEventSize: source.options.maximumEventSize)
        }

        /// The next event; `nil` once the server said `204 No Content`.
        ///
        /// - Throws: ``APIError`` when the source gives up, or `CancellationError`.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if nextReady < ready.count {
                    defer { nextReady += 1 }
                    return ready[nextReady]
                }
                ready.removeAll(keepingCapacity: true)
                nextReady = 0
                if isFinished { return nil }
                guard var open = connection else {
                    if let wait, wait > .zero { try await source.sleep(wait) }
                    wait = nil
                    try await connect()
                    continue
                }
                do {
                    let piece = try await open.next()
                    connection = open
                    guard let piece else {
                        try connectionEnded(after: nil)
                        continue
                    }
                    try parser.parse(piece, into: &ready)
                    if !ready.isEmpty {
                        eventsOnThisConnection += ready.count
                        failures = 0
                    }
                } catch let error as APIError where source.isWorthReconnecting(error) {
                    try connectionEnded(after: error)
                }
            }
        }

        private mutating func connect() async throws {
            try Task.checkCancellation()
            eventsOnThisConnection = 0
            do {
                let stream = try await source.connect(parser.lastEventID)
                if stream.response.status == .noContent {
                    stream.cancel()
                    isFinished = true
                    return
                }
                let contentType = stream.response.headers[.contentType]
                guard contentType.map(ContentTypeCheck.mediaType(of:)) == "text/event-stream" else {
                    stream.cancel()
                    throw APIError(
                        .unacceptableContentType(contentType),
                        message: "an event source needs text/event-stream but the server sent \(contentType ?? "none")",
                        request: stream.request, response: stream.response)
                }
                connection = stream.makeAsyncIterator()
            } catch let error as APIError where source.isWorthReconnecting(error) {
                try connectionEnded(after: error)
            }
        }

        /// The connection is over (`error` says why, `nil` for a clean end): plan the next one, after
        /// the server's retry when it brought events (a drop or an end is the normal life of an event
        /// stream), else after the failure backoff (``EventSourceOptions``).
        private mutating func connectionEnded(after error: APIError?) throws {
            connection = nil
            parser.finish()
            let options = source.options
            failures = eventsOnThisConnection > 0 ? 0 : failures + 1
            if let limit = options.maximumConsecutiveFailures, failures > limit {
                throw error
                    ?? APIError(
                        .transport(.connectionLost),
                        message: "the event stream ended \(failures) times in a row without an event")
            }
            wait = options.wait(
                afterFailures: failures, serverRetry: parser.reconnectionTime,
                retryAfter: error?.response.flatMap { RetryAfter.delay(in: $0, now: source.now()) },
                jitter: source.jitter())
        }
    }

    /// Starts reading; the first connection is made by the first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    /// Whether reconnecting may mend the failure.
    func isWorthReconnecting(_ error: APIError) -> Bool {
        switch error.kind {
        case .transport(let failure):
            // Not TLS, a bad response or a proxy's 407 to CONNECT (proxyAuthenticationRequired):
            // the next connection would meet the same refusal.
            return [.connectionLost, .timedOut, .cannotConnect, .deadlineExceeded].contains(failure)
        case .unacceptableStatus(let status):
            return options.retryableStatuses.contains(status.code)
        default:
            return false
        }
    }
}

extension APIClient {
    /// A Server-Sent Events source on a route, reconnecting as the specification describes (see
    /// ``EventSource``).
    ///
    /// ```swift
    /// for try await event in client.events(Feed.updates, options: .init(maximumConsecutiveFailures: 10)) {
    ///     handle(event)
    /// }
    /// ```
    ///
    /// Each connection asks for `text/event-stream` with `Cache-Control: no-cache`, and sends
    /// `Last-Event-ID` once the stream has set an id.
    public func events(_ route: some Route, options: EventSourceOptions = EventSourceOptions()) -> EventSource {
        EventSource(
            connect: { lastEventID in
                try await stream(EventSourceRoute(base: route, lastEventID: lastEventID), options: options.stream)
            }, options: options)
    }
}

/// A route asked as an event source: its own settings, the event-stream headers, and any status
/// handed back to the source to decide on.
struct EventSourceRoute<Base: Route>: Route {
    typealias ErrorBody = Base.ErrorBody
    let base: Base
    let lastEventID: String

    var method: HTTPMethod { base.method }
    var path: Path { base.path }
    var query: Query { base.query }
    var headers: HTTPHeaders {
        var headers = base.headers
        headers[.accept] = "text/event-stream"
        headers[.init("Cache-Control")] = "no-cache"
        if !lastEventID.isEmpty { headers[.init("Last-Event-ID")] = lastEventID }
        return headers
    }
    var body: RequestBody? { base.body }
    var timeout: Duration? { base.timeout }
    var idleTimeout: Duration? { base.idleTimeout }
    var baseURL: URL? { base.baseURL }
    var acceptableStatuses: AcceptableStatuses { .success }
    var policies: RequestPolicies { base.policies }
    var requiresAuthentication: Bool { base.requiresAuthentication }
    /// The source reconnects by its own rules: the retry middleware would send each connection again
    /// at once, in bursts the source's backoff never sees.
    var retryPolicy: RetryPolicy? { .never }
    var cachePolicy: CachePolicy? { base.cachePolicy }
}
