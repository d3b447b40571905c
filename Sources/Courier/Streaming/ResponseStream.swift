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
/// once. A stream is read once: a second iteration finds it consumed.
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

    /// Reads the body piece by piece. Dropping the iterator (leaving the `for` loop) ends the
    /// exchange.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: StreamReader

        /// The next piece; `nil` at the end of the body.
        ///
        /// - Throws: ``APIError`` when the exchange fails part way (a lost connection, an idle
        ///   timeout), or `CancellationError`.
        public mutating func next() async throws -> Data? {
            try await reader.exchange.next()
        }
    }

    /// Starts reading the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: StreamReader(exchange: exchange))
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
}

/// An iterator's hold on the exchange: the loop that reads the stream is over when it goes.
final class StreamReader: Sendable {
    let exchange: StreamExchange

    init(exchange: StreamExchange) {
        self.exchange = exchange
    }

    deinit {
        exchange.cancel()
    }
}
