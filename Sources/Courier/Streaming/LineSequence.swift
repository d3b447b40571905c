import Foundation

/// The lines of a byte stream, as they arrive: ends are LF or CRLF (neither is part of the line),
/// each line is decoded as UTF-8 once whole, and a last line without an end is kept.
///
/// ```swift
/// for try await line in try await client.stream(Logs.tail).lines { print(line) }
/// ```
public struct LineSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
    /// A line.
    public typealias Element = String

    let base: Base
    let maximumLength: Int

    /// Reads the lines one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pieces: Base.AsyncIterator
        var splitter: LineSplitter
        var ready: [String] = []
        var nextReady = 0
        var isDone = false

        /// The next line; `nil` at the end of the stream.
        ///
        /// - Throws: The stream's error, or ``APIError`` with ``TransportFailure/responseTooLarge``
        ///   for a line over the limit.
        public mutating func next() async throws -> String? {
            while nextReady == ready.count {
                guard !isDone else { return nil }
                ready.removeAll(keepingCapacity: true)
                nextReady = 0
                if let piece = try await pieces.next() {
                    try splitter.split(piece, into: &ready)
                } else {
                    isDone = true
                    if let last = splitter.finish() { ready.append(last) }
                }
            }
            defer { nextReady += 1 }
            return ready[nextReady]
        }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pieces: base.makeAsyncIterator(), splitter: LineSplitter(maximumLength: maximumLength))
    }
}

extension AsyncSequence where Self: Sendable, Element == Data {
    /// The stream's lines (LF or CRLF ends), at most `maximumLength` bytes each (8 MiB by default).
    public func lines(maximumLength: Int = 8 << 20) -> LineSequence<Self> {
        LineSequence(base: self, maximumLength: Swift.max(1, maximumLength))
    }
}

extension ResponseStream {
    /// The body's lines (LF or CRLF ends), at most 8 MiB each.
    public var lines: LineSequence<Self> { lines() }
}
