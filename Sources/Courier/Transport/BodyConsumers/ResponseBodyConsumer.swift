import Foundation

/// Receives a response body piece by piece, as it arrives, instead of in one `Data`: how
/// downloads to disk and the image loader keep memory bounded whatever the size.
///
/// The transport calls ``responseHeadArrived(_:)`` once the status and headers of the final
/// response (after redirects) are known, then ``receive(_:)`` for each piece of the body. A piece
/// may be of any size. Calls for one exchange never overlap.
///
/// A transport may call a consumer on its own thread (``CurlTransport``'s event loop), where every
/// other transfer waits for it: so consumers are Courier's own (downloads to disk, the image
/// loader), quick and non-blocking, and any user callback they serve (progress) is handed to
/// another queue. That is why the protocol is not public: no user code runs on a loop thread.
package protocol ResponseBodyConsumer: Sendable {
    /// The final response's status and headers (its body still empty). Return `true` to take the
    /// body piece by piece, `false` to let the transport read it into the response as usual (an
    /// error page, say). Throwing stops the exchange with that error.
    func responseHeadArrived(_ head: HTTPResponse) throws -> Bool

    /// Whether the consumer decodes the body's `Content-Encoding` itself, at its own pace (a
    /// stream, whose reader may take a piece long after it arrived). A transport that can hand the
    /// body over as it came (``CurlTransport``: libcurl would otherwise inflate a whole network read
    /// into memory while the consumer has no room) then does, and says so with
    /// ``responseHeadArrived(_:bodyIsEncoded:)``.
    var decodesContentEncoding: Bool { get }

    /// The final head, as ``responseHeadArrived(_:)``, with whether the body arrives as the server
    /// encoded it (only when the consumer ``decodesContentEncoding``).
    func responseHeadArrived(_ head: HTTPResponse, bodyIsEncoded: Bool) throws -> Bool

    /// The next piece of the body. Throwing stops the exchange with that error (a size limit, a
    /// full disk).
    func receive(_ piece: Data) throws

    /// Whether the transport should let the network write the body to a file of its own first
    /// (URLSession download tasks, which slow the network down to the disk's pace) and hand it
    /// over from there. A consumer told ``didFallBehind()`` asks for this on its next attempt.
    var prefersDiskBuffering: Bool { get }

    /// How many body bytes of this exchange have arrived so far, while the transport buffers them on
    /// disk (before they are handed over with ``receive(_:)``). Throwing (a size limit) stops the
    /// exchange with that error.
    func bufferedBytesArrived(_ count: Int64) throws

    /// The transport is stopping this exchange because the body is too large to stream piece by piece
    /// without flow control (URLSession queues every piece in memory); the next attempt should ask
    /// for ``prefersDiskBuffering``.
    func didFallBehind()

    /// Flow control: whether the consumer has room for more body now. When it has none it keeps
    /// `resume` and calls it once, from any thread and never while holding a lock of its own, when
    /// room comes back; the transport stops reading until then (``CurlTransport`` pauses the
    /// transfer, ``URLSessionTransport`` suspends its task).
    func hasRoom(orWhenRoom resume: @escaping @Sendable () -> Void) -> Bool

    /// Whether the transport should hand over the final head as soon as it is complete, before
    /// any body byte (a stream whose server sends its head, then waits).
    var wantsEarlyHead: Bool { get }

    /// Whether the consumer may leave the transport paused for long (a stream whose reader stops
    /// reading): the transport must not count that time as idle.
    var mayPauseForLong: Bool { get }

    /// Whether the final head has reached the caller (a stream's head, handed over before its
    /// body): from then on the request may not be sent again (by a retry, a token refresh), since
    /// another attempt would splice two bodies together (``HTTPRequest/mayBeSentAgain``).
    var hasHandedOverHead: Bool { get }

    /// How many body bytes the consumer took from the exchange so far (for the log line of a
    /// streamed response), or `nil` when it does not count.
    var streamedByteCount: Int64? { get }
}

extension ResponseBodyConsumer {
    /// `false`: the transport decodes.
    package var decodesContentEncoding: Bool { false }

    /// The head, to ``responseHeadArrived(_:)``: a consumer that does not decode never gets an
    /// encoded body.
    package func responseHeadArrived(_ head: HTTPResponse, bodyIsEncoded: Bool) throws -> Bool {
        try responseHeadArrived(head)
    }

    /// `false`: pieces as they arrive.
    package var prefersDiskBuffering: Bool { false }

    /// Ignores the count.
    package func bufferedBytesArrived(_ count: Int64) throws {}

    /// Does nothing.
    package func didFallBehind() {}

    /// Always room: the consumer takes every piece as it comes.
    package func hasRoom(orWhenRoom resume: @escaping @Sendable () -> Void) -> Bool { true }

    /// `false`: the head when the body starts (or the exchange ends).
    package var wantsEarlyHead: Bool { false }

    /// `false`.
    package var mayPauseForLong: Bool { false }

    /// `false`.
    package var hasHandedOverHead: Bool { false }

    /// `nil`.
    package var streamedByteCount: Int64? { nil }
}
