import Foundation

/// The Server-Sent Events of one byte stream, parsed as they arrive (see
/// ``ServerSentEventParser``). It ends with the stream; for an event source that reconnects, use
/// ``APIClient/events(_:options:)``.
///
/// ```swift
/// let stream = try await client.stream(Chat.complete(prompt))
/// for try await event in stream.serverSentEvents() where event.type == "token" { print(event.data, terminator: "") }
/// ```
public struct ServerSentEventSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element == Data {
    /// An event.
    public typealias Element = ServerSentEvent

    let base: Base
    let maximumEventSize: Int

    /// Reads the events one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pieces: Base.AsyncIterator
        var parser: ServerSentEventParser
        var ready: [ServerSentEvent] = []
        var nextReady = 0

        /// The next event; `nil` at the end of the stream (a last event without its blank line is
        /// discarded).
        ///
        /// - Throws: The stream's error, or ``APIError`` with ``TransportFailure/responseTooLarge``
        ///   for an event over the limit.
        public mutating func next() async throws -> ServerSentEvent? {
            while nextReady == ready.count {
                ready.removeAll(keepingCapacity: true)
                nextReady = 0
                guard let piece = try await pieces.next() else {
                    parser.finish()
                    return nil
                }
                try parser.parse(piece, into: &ready)
            }
            defer { nextReady += 1 }
            return ready[nextReady]
        }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            pieces: base.makeAsyncIterator(), parser: ServerSentEventParser(maximumEventSize: maximumEventSize))
    }
}

extension AsyncSequence where Self: Sendable, Element == Data {
    /// The stream's Server-Sent Events, each line and each event's data at most `maximumEventSize`
    /// bytes (8 MiB by default).
    public func serverSentEvents(maximumEventSize: Int = 8 << 20) -> ServerSentEventSequence<Self> {
        ServerSentEventSequence(base: self, maximumEventSize: maximumEventSize)
    }
}

extension ResponseStream {
    /// The body's Server-Sent Events, at most 8 MiB each: ``serverSentEvents(maximumEventSize:)``
    /// (this one connection's events; ``APIClient/events(_:options:)`` is the source that
    /// reconnects).
    @available(*, deprecated, message: "use serverSentEvents(), the events of this one stream")
    public var events: ServerSentEventSequence<Self> { serverSentEvents() }
}
