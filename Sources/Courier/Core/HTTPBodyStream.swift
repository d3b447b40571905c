import Foundation

/// A request body produced while it is sent: an `AsyncSequence` of `Data` chunks, with a declared
/// length or none.
///
/// ```swift
/// let chunks = AsyncStream<Data> { continuation in … }           // a recording, a pipe, a database cursor
/// var request = HTTPRequest(method: .post, url: url, body: .stream(HTTPBodyStream(chunks)))
/// ```
///
/// - A declared `length` is announced as `Content-Length`; a producer that yields more or fewer
///   bytes fails the call with ``TransportFailure/bodyLengthMismatch``, and the server never gets a
///   byte past the length nor a request that looks complete. Without one, HTTP/1.1 sends the body
///   `Transfer-Encoding: chunked` (HTTP/2 needs no framing of its own).
/// - The transport takes the chunks as the network takes them: the producer waits while a few
///   hundred kilobytes are buffered, and a producer that stays silent longer than the idle timeout
///   fails the call with ``TransportFailure/timedOut``. Cancelling the call cancels the task that
///   iterates the sequence.
/// - It can be sent once. A retry, a credential refresh or a 307/308 redirect would have to send it
///   again, so they do not happen: the first outcome is reported (``HTTPRequest/mayBeSentAgain`` is
///   `false` once it was sent), and sending the same stream a second time fails with
///   ``APIError/Kind/invalidRequest`` before any byte goes out. Use ``HTTPBody/data(_:)`` or
///   ``HTTPBody/file(_:)`` for a body that may have to be sent again.
///
/// Two values are equal when they are the same stream (made by the same `init`).
public struct HTTPBodyStream: Sendable, Hashable {
    /// Feeds every chunk of the sequence to `yield`, in order; throws the sequence's error.
    package typealias Pump = @Sendable (_ yield: @Sendable (Data) async throws -> Void) async throws -> Void

    /// The declared length in bytes, or `nil` when unknown (sent chunked on HTTP/1.1).
    public let length: Int64?
    private let source: Source

    /// A body from the chunks of `chunks`, of `length` bytes if known.
    ///
    /// - Parameters:
    ///   - chunks: The body's bytes, in order; empty chunks are skipped. Iterated once, on a task of
    ///     the transport's, while the request is sent.
    ///   - length: How many bytes `chunks` yields in all, announced as `Content-Length`; `nil` when
    ///     unknown.
    public init<S: AsyncSequence & Sendable>(_ chunks: S, length: Int64? = nil) where S.Element == Data {
        precondition(length.map { $0 >= 0 } ?? true, "a body stream's length cannot be negative")
        self.length = length
        source = Source { yield in
            for try await chunk in chunks where !chunk.isEmpty {
                try await yield(chunk)
            }
        }
    }

    /// Whether a transport has taken the stream to send it (then it cannot be sent again).
    public var hasBeenSent: Bool { source.pump.withLock { $0 == nil } }

    /// Takes the stream for sending: its pump the first time, `nil` ever after.
    package func claim() -> Pump? {
        source.pump.withLock { pump in
            defer { pump = nil }
            return pump
        }
    }

    /// The error of a second send of a stream, before anything of it went out.
    package static func alreadySentError(_ request: HTTPRequest) -> APIError {
        APIError(
            .invalidRequest,
            message: "the request body is a stream that was sent already (by a retry, a credential refresh or a "
                + "redirect that sends the body again); a stream can be sent once: use a data or file body for a "
                + "request that may be sent again",
            request: request)
    }

    /// Whether both are the same stream.
    public static func == (lhs: HTTPBodyStream, rhs: HTTPBodyStream) -> Bool {
        lhs.source === rhs.source
    }

    /// Hashes the stream's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(source))
    }

    /// The stream's identity and its pump until it is claimed.
    private final class Source: Sendable {
        let pump: Locked<Pump?>

        init(_ pump: @escaping Pump) {
            self.pump = Locked(pump)
        }
    }
}
