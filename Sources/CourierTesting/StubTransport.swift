import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers from rules instead of the network, and records every request: for
/// unit tests, previews and offline modes.
///
/// ```swift
/// let transport = StubTransport()
///     .on(.get, "/search", .json(page))
///     .on(.post, "/comments", .status(.created))
/// let client = APIClient(baseURL: URL(string: "https://api.example.com")!, transport: transport)
/// _ = try await client.send(SearchSongs(term: "x"))
/// #expect(transport.requests.first?.url.query == "term=x")
/// ```
///
/// Rules are tried in the order they were added. A rule with several responses answers with them
/// in turn and then repeats the last (handy for retry tests). A request that no rule matches fails
/// with `UnmatchedRequest`, whose description names the request and the rules there are, so the
/// test that sent it fails loudly.
public final class StubTransport: HTTPStreamingTransport, @unchecked Sendable {
    // `@unchecked Sendable`: `rules` and `recorded` are only read or written while `lock` is held;
    // everything else is immutable.

    /// The error for a request that no rule matches.
    public struct UnmatchedRequest: Error, CustomStringConvertible {
        /// The request that matched no rule.
        public let request: HTTPRequest
        /// The rules the transport had, described.
        public let rules: [String]

        /// Names the request (method, URL and headers) and the rules.
        public var description: String {
            let headers = request.headers.description.replacingOccurrences(of: "\n", with: "; ")
            let known = rules.isEmpty ? "no rules" : "rules: " + rules.joined(separator: ", ")
            return "StubTransport has no rule for \(request) [\(headers)]; \(known)"
        }
    }

    /// How a rule answers: canned responses in turn, or a closure that sees the request.
    private enum Answer: Sendable {
        case canned(StubResponse)
        case computed(@Sendable (HTTPRequest) async throws -> StubResponse)
    }

    private final class Rule: @unchecked Sendable {
        // `@unchecked Sendable`: `next` is only touched while the owning transport's lock is held.
        let label: String
        let matches: @Sendable (HTTPRequest) -> Bool
        let responses: [StubResponse]
        let respond: (@Sendable (HTTPRequest) async throws -> StubResponse)?
        var next = 0

        init(
            label: String,
            matches: @escaping @Sendable (HTTPRequest) -> Bool,
            responses: [StubResponse] = [],
            respond: (@Sendable (HTTPRequest) async throws -> StubResponse)? = nil
        ) {
            self.label = label
            self.matches = matches
            self.responses = responses
            self.respond = respond
        }

        /// The next answer; called with the transport's lock held.
        func takeAnswer() -> Answer {
            if let respond { return .computed(respond) }
            let index = min(next, responses.count - 1)
            next += 1
            return .canned(responses[index])
        }
    }

    private let lock = NSLock()
    private var rules: [Rule] = []
    private var recorded: [HTTPRequest] = []
    /// The WebSocket rules (``onWebSocket(_:answering:conversation:)``), behind a lock of their own.
    let sockets = StubSocketRules()

    /// Creates a transport with no rules.
    public init() {}

    /// Answers requests with this method and URL path with `responses`, in turn, repeating the last.
    ///
    /// The path is compared as it is on the wire, percent-encoded (`"/files/a%2Fb"`), without the
    /// query; `"*"` matches any path.
    @discardableResult
    public func on(_ method: HTTPMethod, _ path: String, _ responses: StubResponse...) -> StubTransport {
        precondition(!responses.isEmpty, "StubTransport.on needs at least one response")
        let wanted = path.hasPrefix("/") || path == "*" ? path : "/" + path
        add(
            Rule(
                label: "\(method) \(wanted)", matches: { Self.request($0, has: method, path: wanted) },
                responses: responses))
        return self
    }

    /// Answers requests that `matches` accepts with `responses`, in turn, repeating the last.
    @discardableResult
    public func on(
        _ description: String = "custom rule",
        where matches: @escaping @Sendable (HTTPRequest) -> Bool,
        _ responses: StubResponse...
    ) -> StubTransport {
        precondition(!responses.isEmpty, "StubTransport.on needs at least one response")
        add(Rule(label: description, matches: matches, responses: responses))
        return self
    }

    /// Answers requests with this method and path by calling `respond`, which sees the request.
    @discardableResult
    public func on(
        _ method: HTTPMethod,
        _ path: String,
        respond: @escaping @Sendable (HTTPRequest) async throws -> StubResponse
    ) -> StubTransport {
        let wanted = path.hasPrefix("/") || path == "*" ? path : "/" + path
        add(
            Rule(
                label: "\(method) \(wanted)", matches: { Self.request($0, has: method, path: wanted) }, respond: respond
            )
        )
        return self
    }

    /// Answers requests that `matches` accepts by calling `respond`, which sees the request.
    @discardableResult
    public func on(
        _ description: String = "custom rule",
        where matches: @escaping @Sendable (HTTPRequest) -> Bool,
        respond: @escaping @Sendable (HTTPRequest) async throws -> StubResponse
    ) -> StubTransport {
        add(Rule(label: description, matches: matches, respond: respond))
        return self
    }

    /// Every request received, in order. A stream body (`HTTPBody.stream`) is read whole when the
    /// request arrives and recorded as `.data` of its bytes.
    public var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// The requests received for a URL path (percent-encoded, as in `on(_:_:_:)`).
    public func requests(to path: String) -> [HTTPRequest] {
        let wanted = path.hasPrefix("/") ? path : "/" + path
        return requests.filter { Self.encodedPath(of: $0) == wanted }
    }

    /// Answers from the first matching rule.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await answer(request, consumer: nil)
    }

    /// Answers from the first matching rule, handing the body to `consumer` in pieces of at most
    /// 64 KiB when it accepts it, as a network transport would.
    package func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer) async throws
        -> HTTPResponse
    {
        try await answer(request, consumer: consumer)
    }

    private func answer(_ request: HTTPRequest, consumer: (any ResponseBodyConsumer)?) async throws -> HTTPResponse {
        var request = request
        if case .stream(let stream) = request.body {
            request.body = .data(try await Self.collect(stream, of: request))
        }
        if let length = request.body?.length, let meter = CallContext.current.uploadMeter {
            // The whole body "sent" at once, so progress-watching code sees its last step.
            meter.sent(length, of: length)
        }
        let stub: StubResponse
        switch try match(request) {
        case .canned(let canned): stub = canned
        case .computed(let respond): stub = try await respond(request)
        }
        if let delay = stub.delay {
            try await Task.sleep(for: delay)
        }
        switch stub.outcome {
        case .failure(let error):
            throw error
        case .response(let status, let headers, let body):
            let response = HTTPResponse(status: status, headers: headers, body: try body(), url: request.url)
            guard let consumer else { return response }
            var head = response
            head.body = Data()
            guard try consumer.responseHeadArrived(head) else { return response }
            let bytes = response.body
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                try Task.checkCancellation()
                await Self.waitForRoom(in: consumer)
                let end = min(offset + 65_536, bytes.endIndex)
                try consumer.receive(bytes.subdata(in: offset..<end))
                offset = end
            }
            return head
        }
    }

    /// Reads a body stream whole, as a network transport sends it: once (a second send fails with
    /// `invalidRequest`), failing with `bodyLengthMismatch` when it breaks its declared length.
    private static func collect(_ stream: HTTPBodyStream, of request: HTTPRequest) async throws -> Data {
        guard let pump = stream.claim() else { throw HTTPBodyStream.alreadySentError(request) }
        let body = Locked(Data())
        do {
            try await pump { chunk in body.withLock { $0.append(chunk) } }
        } catch {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw APIError(
                .transport(.other), message: "the request body stream failed: \(error)", request: request,
                underlyingError: error)
        }
        let data = body.withLock { $0 }
        if let length = stream.length, Int64(data.count) != length {
            throw APIError(
                .transport(.bodyLengthMismatch),
                message: "the request body stream yielded \(data.count) bytes, not the \(length) it declared",
                request: request)
        }
        return data
    }

    /// Flow control, as a network transport has it: the next piece waits until the consumer has room.
    private static func waitForRoom(in consumer: any ResponseBodyConsumer) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if consumer.hasRoom(orWhenRoom: { continuation.resume() }) { continuation.resume() }
        }
    }

    private func add(_ rule: Rule) {
        lock.lock()
        rules.append(rule)
        lock.unlock()
    }

    /// Records the request and takes the answer of the first rule that matches it.
    ///
    /// - Throws: `UnmatchedRequest` when no rule does.
    private func match(_ request: HTTPRequest) throws -> Answer {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(request)
        guard let rule = rules.first(where: { $0.matches(request) }) else {
            throw UnmatchedRequest(request: request, rules: rules.map(\.label))
        }
        return rule.takeAnswer()
    }

    private static func request(_ request: HTTPRequest, has method: HTTPMethod, path: String) -> Bool {
        request.method == method && (path == "*" || encodedPath(of: request) == path)
    }

    /// Records a request answered without the HTTP rules (a WebSocket handshake).
    func record(_ request: HTTPRequest) {
        lock.lock()
        recorded.append(request)
        lock.unlock()
    }

    static func encodedPath(of request: HTTPRequest) -> String {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? request.url.path
    }
}
