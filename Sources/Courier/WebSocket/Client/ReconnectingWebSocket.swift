import Foundation

/// A WebSocket that reconnects when its connection ends, for as long as the caller reads: its
/// events are the connections made, the messages received and the disconnections.
///
/// ```swift
/// for try await event in client.reconnectingWebSocket(.socket("prices")) {
///     switch event {
///     case .connected(let socket): try await socket.send(json: Subscribe(symbols: ["ACME"]))
///     case .message(let message): handle(message)
///     case .disconnected(let close, let error): print("lost (\(close)): \(error?.message ?? "closed")")
///     }
/// }
/// ```
///
/// It waits before each reconnection by the rules ``EventSource`` uses: after a connection that
/// brought messages, ``WebSocketReconnectionOptions/delay``; after one that failed (no connection,
/// a retryable status, or a connection that ended before its first message — a server that
/// accepts and closes at once), a backoff from ``WebSocketReconnectionOptions/initialBackoff``
/// doubling with each failure in a row, with jitter (between half and all of it), capped at
/// ``WebSocketReconnectionOptions/maximumDelay``, never shorter than the delay nor a `503`'s
/// `Retry-After`. It never reconnects in a tight loop.
///
/// It ends (returns `nil`) after the caller closed the current socket (``WebSocket/close(code:reason:)``
/// on the socket of `.connected`); it throws when reconnecting cannot help: a status outside
/// ``WebSocketReconnectionOptions/retryableStatuses`` (a `401` the authentication middleware
/// could not mend), a handshake RFC 6455 refuses, a transport without WebSockets, the peer closing
/// with a code that says the client is at fault (1002, 1003, 1007, 1008, 1009, 1010), after
/// ``WebSocketReconnectionOptions/maximumConsecutiveFailures``, or with `CancellationError`.
/// Leaving the loop closes the current socket with 1001 (going away). Each connection's handshake
/// passes the client's middlewares. Connecting waits for the first `next()`.
public struct ReconnectingWebSocket: AsyncSequence, Sendable {
    /// What happened.
    public typealias Element = WebSocketEvent

    /// Opens one socket.
    let connect: @Sendable () async throws -> WebSocket
    let options: WebSocketReconnectionOptions
    /// Waits between connections (tests record the waits instead).
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// Draws the backoff's jitter, from 0 to 1.
    var jitter: @Sendable () -> Double = { Double.random(in: 0...1) }

    /// Reads events, reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: ReconnectingWebSocket
        var socket: WebSocket?
        var messages: WebSocket.Messages.AsyncIterator?
        var isFinished = false
        /// Connections in a row that failed or brought no message.
        var failures = 0
        var messagesOnThisConnection = 0
        var wait: Duration?

        /// The next event; `nil` once the caller closed the socket.
        ///
        /// - Throws: ``APIError`` when reconnecting cannot help, or `CancellationError`.
        public mutating func next() async throws -> WebSocketEvent? {
            while !isFinished {
                guard let socket, var reading = messages else {
                    if let wait, wait > .zero { try await source.sleep(wait) }
                    wait = nil
                    try Task.checkCancellation()
                    if let socket = try await connect() { return .connected(socket) }
                    continue
                }
                let message: WebSocketMessage?
                do {
                    message = try await reading.next()
                } catch let error as APIError {
                    if socket.engine.isClosedByCaller { isFinished = true }
                    guard !isFinished, error.kind != .invalidRequest, error.kind != .decoding else { throw error }
                    try connectionEnded(after: error)
                    return .disconnected(socket.closure ?? WebSocketClose(code: .abnormalClosure), error)
                }
                if let message {
                    messages = reading
                    messagesOnThisConnection += 1
                    return .message(message)
                }
                let close = socket.closure ?? WebSocketClose(code: .abnormalClosure)
                if socket.engine.isClosedByCaller {
                    self.socket = nil
                    messages = nil
                    isFinished = true
                } else {
                    if Self.peerBlamesClient.contains(close.code) {
                        throw APIError(
                            .transport(.connectionLost),
                            message: "the WebSocket peer closed with \(close), which reconnecting would not mend",
                            request: socket.request, response: socket.response)
                    }
                    try connectionEnded(after: nil)
                }
                return .disconnected(close, nil)
            }
            return nil
        }

        /// Opens a socket; `nil` when it failed in a way worth another try (the wait is planned).
        private mutating func connect() async throws -> WebSocket? {
            messagesOnThisConnection = 0
            do {
                let socket = try await source.connect()
                self.socket = socket
                messages = socket.messages.makeAsyncIterator()
                return socket
            } catch let error as APIError where source.isWorthReconnecting(error) {
                try connectionEnded(after: error)
                return nil
            }
        }

        /// The connection is over: plan the next one (``WebSocketReconnectionOptions``), or give up.
        private mutating func connectionEnded(after error: APIError?) throws {
            socket = nil
            messages = nil
            failures = messagesOnThisConnection > 0 ? 0 : failures + 1
            let options = source.options
            if let limit = options.maximumConsecutiveFailures, failures > limit {
                throw error
                    ?? APIError(
                        .transport(.connectionLost),
                        message: "the WebSocket closed \(failures) times in a row without a message")
            }
            wait = options.backoff.wait(
                afterFailures: failures, serverRetry: nil,
                retryAfter: error?.response.flatMap { RetryAfter.delay(in: $0, now: Date()) },
                jitter: source.jitter())
        }

        /// Close codes by which the peer says the client is at fault: reconnecting meets them again.
        static let peerBlamesClient: Set<WebSocketCloseCode> = [
            .protocolError, .unsupportedData, .invalidPayloadData, .policyViolation, .messageTooBig,
            .mandatoryExtension,
        ]
    }

    /// Starts reading; the first connection is made by the first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    /// Whether reconnecting may mend a failure to connect.
    func isWorthReconnecting(_ error: APIError) -> Bool {
        switch error.kind {
        case .transport(let failure):
            return [.connectionLost, .timedOut, .cannotConnect, .deadlineExceeded].contains(failure)
        case .unacceptableStatus(let status):
            return options.retryableStatuses.contains(status.code)
        default:
            return false
        }
    }
}

/// What a ``ReconnectingWebSocket`` saw.
public enum WebSocketEvent: Sendable {
    /// A connection opened: send on this socket (it is the current one until `.disconnected`).
    case connected(WebSocket)
    /// A message arrived.
    case message(WebSocketMessage)
    /// The connection ended: how it closed and, for an abnormal end, the error; a reconnection
    /// follows unless the caller closed it.
    case disconnected(WebSocketClose, APIError?)
}

/// How a ``ReconnectingWebSocket`` reconnects (see its rules there).
public struct WebSocketReconnectionOptions: Sendable, Hashable {
    /// The wait after a connection that brought messages, and the shortest wait ever: 1 second by
    /// default, at least 250 milliseconds.
    public var delay: Duration
    /// The wait after the first failure in a row: 1 second by default; it doubles with each
    /// further one, with jitter.
    public var initialBackoff: Duration
    /// The longest wait: a minute by default.
    public var maximumDelay: Duration
    /// How many connections in a row may fail before the socket gives up with the last error;
    /// `nil` (the default) for no limit.
    public var maximumConsecutiveFailures: Int?
    /// The handshake statuses after which it reconnects: `408, 429, 500, 502, 503, 504` by default.
    public var retryableStatuses: Set<Int>
    /// Each socket's options.
    public var socket: WebSocketOptions

    /// Creates options.
    public init(
        delay: Duration = .seconds(1), initialBackoff: Duration = .seconds(1), maximumDelay: Duration = .seconds(60),
        maximumConsecutiveFailures: Int? = nil, retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        socket: WebSocketOptions = WebSocketOptions()
    ) {
        self.delay = max(.milliseconds(250), delay)
        self.initialBackoff = max(.milliseconds(250), initialBackoff)
        self.maximumDelay = max(self.delay, maximumDelay)
        self.maximumConsecutiveFailures = maximumConsecutiveFailures.map { max(0, $0) }
        self.retryableStatuses = retryableStatuses
        self.socket = socket
    }

    /// The backoff rules, shared with ``EventSource``.
    var backoff: EventSourceOptions {
        EventSourceOptions(
            defaultRetry: delay, minimumRetry: delay, maximumRetry: maximumDelay, initialBackoff: initialBackoff)
    }
}

extension APIClient {
    /// A WebSocket on `route` that reconnects when its connection ends (see ``ReconnectingWebSocket``).
    ///
    /// ```swift
    /// for try await event in client.reconnectingWebSocket(.socket("prices")) { … }
    /// ```
    public func reconnectingWebSocket(
        _ route: some WebSocketRoute, options: WebSocketReconnectionOptions = WebSocketReconnectionOptions()
    ) -> ReconnectingWebSocket {
        ReconnectingWebSocket(connect: { try await webSocket(route, options: options.socket) }, options: options)
    }
}
