import Foundation

/// A response whose body is read as it arrives: the head (status and headers) at once, then the
/// body's pieces as an `AsyncSequence` of `Data`, with views for lines, JSON lines and
/// Server-Sent Events.
///
/// ```swift
/// let stream = try await client.stream(Logs.tail(service: "api"))
/// print(stream.response.status)                      // 200 OK
/// for try await line in stream.lines { print(line) }
/// ```
///
/// Reading is flow-controlled: when the reader falls ``StreamOptions/bufferSize`` bytes behind,
/// the transport stops reading from the network until it catches up. Leaving the loop early,
/// cancelling the reading task, calling ``cancel()`` or dropping the stream ends the exchange at
/// once. A stream is read once, by one iterator (the first one made, by a `for` loop or a view):
/// another iterator's `next()` throws ``APIError/Kind/invalidRequest`` while the stream goes on, and
/// returns `nil` once it is over; dropping it leaves the stream alone.
public struct ResponseStream: AsyncSequence, Sendable {
    /// A piece of the body.
    public typealias Element = Data

    /// The response's status, headers and URL (its `body` is empty: the body is the sequence).
    public let response: HTTPResponse
    /// The request as finally sent (after the middlewares).
    public let request: HTTPRequest
    let exchange: StreamExchange
    /// The client's decoder, for ``jsonLines(as:decoder:maximumLineLength:)``.
    let decoder: JSONDecoder

    init(response: HTTPResponse, request: HTTPRequest, exchange: StreamExchange, decoder: JSONDecoder) {
        self.response = response
        self.request = request
        self.exchange = exchange
        self.decoder = decoder
    }

    /// Reads the body piece by piece. Dropping the stream's reading iterator (leaving the `for`
    /// loop) ends the exchange.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The hold of the stream's one reading iterator; `nil` for any other.
        let reader: StreamReadingLoop?
        let exchange: StreamExchange

        /// The next piece; `nil` at the end of the body.
        ///
        /// - Throws: ``APIError`` when the exchange fails part way (a lost connection, an idle
        ///   timeout) or when another iterator reads the stream, or `CancellationError`.
        public mutating func next() async throws -> Data? {
            guard let reader else { return try exchange.refuseSecondReader() }
            return try await reader.exchange.next()
        }
    }

    /// Starts reading the body: the first iterator made reads it; any other is refused.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: exchange.claim() ? StreamReadingLoop(exchange: exchange) : nil, exchange: exchange)
    }

    /// Ends the exchange now; reading afterwards throws `CancellationError`.
    public func cancel() {
        exchange.cancel()
    }
}

/// The running exchange behind a ``ResponseStream``: cancelled when its stream and every iterator
/// are gone, so an abandoned stream never keeps a connection open.
final class StreamExchange: Sendable {
    let buffer: StreamBuffer
    private let task: Task<Void, Never>
    private let isClaimed = Locked(false)

    init(buffer: StreamBuffer, task: Task<Void, Never>) {
        self.buffer = buffer
        self.task = task
    }

    deinit {
        cancel()
    }

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await buffer.next()
        } onCancel: {
            cancel()
        }
    }

    func cancel() {
        buffer.finish(.failure(CancellationError()))
        task.cancel()
    }

    /// Makes the caller the stream's one reader; `false` when an iterator already is.
    func claim() -> Bool {
        isClaimed.withLock { isClaimed in
            defer { isClaimed = true }
            return !isClaimed
        }
    }

    /// What an iterator other than the reader gets: `nil` once the stream is over, else an error.
    func refuseSecondReader() throws -> Data? {
        guard buffer.isOver else { throw StreamBuffer.secondReaderError }
        return nil
    }
}

/// An iterator's hold on the exchange: the loop that reads the stream is over when it goes.
final class StreamReadingLoop: Sendable {
    let exchange: StreamExchange

    init(exchange: StreamExchange) {
        self.exchange = exchange
    }

    deinit {
        exchange.cancel()
    }
}
