import Foundation

/// Between a transport and the reader of a ``ResponseStream``: takes the body as it arrives, up to
/// a capacity, and asks the transport to pause beyond it (flow control); hands the accepted head to
/// the caller as soon as it is complete; keeps at most ``StreamOptions/maximumErrorBodySize`` bytes
/// of an unacceptable status's body for the error.
///
/// It decodes a gzip or deflate body itself when the transport hands the body over as the server
/// encoded it (``CurlTransport``): the buffer and the flow control count the compressed bytes, and
/// the reader inflates at most 256 KiB a call, so a body that inflates a thousandfold (or a
/// decompression bomb) costs the same memory as any other.
///
/// The transport calls it on its own thread (never two calls at once for one exchange); the reader
/// on its task. Its state is one value behind one lock: a named ``Phase`` (waiting for the head, an
/// error page, streaming), the queue of pieces, the waiters; the state's methods say what to do, and
/// the buffer does it after the lock is released (no continuation or resume handler is called while
/// it is held). The reader's decoder is behind a lock of its own, so inflating never holds up the
/// transport.
final class StreamBuffer: ResponseBodyConsumer, Sendable {
    /// Where the exchange is, as the transport's calls move it on.
    private enum Phase {
        /// No final head yet (the caller may be waiting for it in ``head()``).
        case waitingForHead
        /// The last head was an unacceptable status: its page is kept for the error, up to a limit.
        case errorPage(StreamErrorPage)
        /// The accepted head reached the caller: the body flows to the reader, and the request may
        /// not be sent again.
        case streaming(HTTPResponse)
    }

    private struct State {
        var phase = Phase.waitingForHead
        var headWaiter: CheckedContinuation<HTTPResponse, any Error>?
        var queue = StreamPieceQueue()
        var reader: CheckedContinuation<Data?, any Error>?
        /// How the body ended, in any phase: `nil` while it goes on.
        var end: Result<Void, any Error>?
        /// The transport's way to go on after a pause.
        var resume: (@Sendable () -> Void)?
        var delivered: Int64 = 0

        /// What to do with a body piece from the transport.
        enum PieceAction {
            case none
            case handToReader(CheckedContinuation<Data?, any Error>)
            case failBehind
            case failCut(HTTPResponse)
        }

        mutating func received(_ piece: Data, options: StreamOptions) -> PieceAction {
            switch phase {
            case .errorPage(var page):
                let cut = page.add(piece, limit: options.maximumErrorBodySize)
                phase = .errorPage(page)
                return cut.map(PieceAction.failCut) ?? .none
            case .waitingForHead, .streaming:
                guard end == nil else { return .none }
                delivered += Int64(piece.count)
                if let reader {
                    self.reader = nil
                    return .handToReader(reader)
                }
                guard queue.count + piece.count <= options.maximumBacklog else { return .failBehind }
                queue.append(piece)
                return .none
            }
        }

        /// Takes the waiting pieces (joined, up to 256 KiB) or the end, and the transport's way to
        /// go on when the buffer is down to half; `nil` when there is nothing yet.
        mutating func take(options: StreamOptions) -> (
            ready: Result<Data?, any Error>?, resume: (@Sendable () -> Void)?
        ) {
            guard let piece = queue.take(upTo: StreamBuffer.largestPiece) else {
                return (end.map { $0.map { nil } }, nil)
            }
            var wake: (@Sendable () -> Void)?
            if queue.count <= options.bufferSize / 2 {
                wake = resume
                resume = nil
            }
            return (.success(piece), wake)
        }

        /// What ``StreamBuffer/finish(_:)`` resumes: every waiter, once.
        typealias Waiters = (
            reader: CheckedContinuation<Data?, any Error>?, head: CheckedContinuation<HTTPResponse, any Error>?,
            resume: (@Sendable () -> Void)?
        )

        mutating func finish(_ result: Result<Void, any Error>) -> Waiters {
            guard end == nil else {
                // A cancellation after the network's end (a cut whose pieces still wait): the
                // caller asked for nothing more, so nothing more is handed over.
                if case .failure(let error) = result, error is CancellationError {
                    end = result
                    queue.removeAll()
                }
                return (nil, nil, nil)
            }
            end = result
            // What arrived before the network failed is still the reader's (the events before a
            // dropped connection), bounded by the buffer; after any other failure (a cancellation,
            // a backlog or size limit) nothing more will be read: let the memory go at once.
            if case .failure(let error) = result, !StreamBuffer.handsOverBufferedBody(after: error) {
                queue.removeAll()
            }
            defer {
                reader = nil
                headWaiter = nil
                resume = nil
            }
            return (reader, headWaiter, resume)
        }

        var hasHandedOverHead: Bool {
            if case .streaming = phase { return true }
            return false
        }
    }

    private let acceptableStatuses: AcceptableStatuses
    private let options: StreamOptions
    /// Whether the request's response can have a body (not a HEAD request's).
    private let expectsBody: Bool
    private let state = Locked(State())
    /// The reader's decoder, when the body arrives encoded: used only under this lock, by one reader.
    private let decoding = Locked<Confined<ContentDecoder>?>(nil)
    /// Runs between the reader's two looks at the buffer (tests: a piece that arrives just then).
    private let betweenLooks: (@Sendable () -> Void)?

    init(
        acceptableStatuses: AcceptableStatuses, options: StreamOptions, expectsBody: Bool = true,
        betweenLooks: (@Sendable () -> Void)? = nil
    ) {
        self.acceptableStatuses = acceptableStatuses
        self.options = options
        self.expectsBody = expectsBody
        self.betweenLooks = betweenLooks
    }

    // MARK: The transport's side

    func responseHeadArrived(_ head: HTTPResponse) throws -> Bool {
        try responseHeadArrived(head, bodyIsEncoded: false)
    }

    var decodesContentEncoding: Bool { true }

    /// Whether a body follows the head: not for a HEAD request, a 204, a 304 or a length of zero
    /// (whose `Content-Encoding` describes a body that is not there).
    private func hasBody(_ head: HTTPResponse) -> Bool {
        expectsBody && ![204, 304].contains(head.status.code) && head.headers[.contentLength] != "0"
    }

    func responseHeadArrived(_ head: HTTPResponse, bodyIsEncoded: Bool) throws -> Bool {
        // Every line of it: codings sent as two lines are two codings.
        let contentEncoding =
            bodyIsEncoded && hasBody(head) ? head.headers.values(for: .contentEncoding).joined(separator: ", ") : nil
        if acceptableStatuses.contains(head.status) {
            // A coding Courier cannot decode fails the call here, before the head reaches the caller.
            let decoder = try ContentDecoder.coding(of: contentEncoding).map { try ContentDecoder($0) }
            // Before the head is published: a reader never sees the body without its decoder.
            decoding.withLock { $0 = decoder.map(Confined.init) }
            let waiter = try state.withLock { state -> CheckedContinuation<HTTPResponse, any Error>? in
                guard !state.hasHandedOverHead else { throw Self.replayError(head) }
                state.phase = .streaming(head)
                defer { state.headWaiter = nil }
                return state.headWaiter
            }
            waiter?.resume(returning: head)
            return true
        }
        // An error page Courier cannot decode keeps its status and headers, without its body.
        var decoder: ContentDecoder?
        var dropsBody = false
        do {
            decoder = try ContentDecoder.coding(of: contentEncoding).map { try ContentDecoder($0) }
        } catch {
            dropsBody = true
        }
        if contentEncoding == nil, let announced = head.headers[.contentLength].flatMap(Int.init),
            announced > options.maximumErrorBodySize
        {
            throw cutError(head)
        }
        try state.withLock { state in
            guard !state.hasHandedOverHead else { throw Self.replayError(head) }
            state.phase = .errorPage(StreamErrorPage(head: head, decoder: decoder, dropsBody: dropsBody))
        }
        return true
    }

    func receive(_ piece: Data) throws {
        switch state.withLock({ $0.received(piece, options: options) }) {
        case .none: break
        case .handToReader(let reader): reader.resume(returning: piece)
        case .failBehind: throw backlogError()
        case .failCut(let response): throw cutError(response)
        }
    }

    func hasRoom(orWhenRoom resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.end == nil, state.queue.count >= options.bufferSize else { return true }
            state.resume = resume
            return false
        }
    }

    var wantsEarlyHead: Bool { true }

    var mayPauseForLong: Bool { true }

    var hasHandedOverHead: Bool { state.withLock { $0.hasHandedOverHead } }

    var streamedByteCount: Int64? { state.withLock { $0.delivered } }

    /// Whether the body ended (read to its end, failed or cancelled).
    var isOver: Bool { state.withLock { $0.end != nil } }

    /// The bytes the buffer keeps referenced, read or not (for tests of its memory bound).
    var retainedByteCount: Int { state.withLock { $0.queue.retainedByteCount } }

    // MARK: The caller's side

    /// Waits for the accepted head; throws when the exchange ends without one.
    func head() async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<HTTPResponse, any Error>? in
                if case .streaming(let head) = state.phase { return .success(head) }
                if case .failure(let error) = state.end { return .failure(error) }
                if state.end != nil {
                    return .failure(APIError(.transport(.badResponse), message: "the exchange ended without a head"))
                }
                state.headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The unacceptable head and the body kept of it, when the last attempt had one.
    var errorResponse: HTTPResponse? {
        state.withLock { state in
            guard case .errorPage(let page) = state.phase else { return nil }
            return page.response
        }
    }

    /// The next piece of the body (the pieces waiting joined, up to 256 KiB), `nil` at its end.
    ///
    /// - Throws: ``APIError`` when a second reader asks while another one waits, or the exchange's
    ///   error once the pieces before it are read.
    func next() async throws -> Data? {
        guard decoding.withLock({ $0 != nil }) else { return try await nextPiece() }
        while true {
            // A cancelled stream hands over nothing more, whatever its decoder still holds.
            if case .failure(let error)? = state.withLock({ $0.end }), !Self.handsOverBufferedBody(after: error) {
                throw error
            }
            let decoded = try decode { try $0.decode(maximum: Self.largestPiece) }
            if !decoded.isEmpty { return decoded }
            guard let piece = try await nextPiece() else {
                _ = try decode { decoder in
                    try decoder.finish()
                    return Data()
                }
                return nil
            }
            decoding.withLock { $0?.value.feed(piece) }
        }
    }

    /// Runs `work` on the reader's decoder (one reader at a time, so its lock is never waited for);
    /// a decoding error ends the stream with it.
    private func decode(_ work: (ContentDecoder) throws -> Data) throws -> Data {
        do {
            return try decoding.withLock { decoder in try decoder.map { try work($0.value) } ?? Data() }
        } catch {
            finish(.failure(error))
            throw error
        }
    }

    /// Whether the reader still gets the pieces that arrived before `error` ended the exchange: after
    /// the network failed (a cut, an idle timeout), not after a cancellation or a limit.
    fileprivate static func handsOverBufferedBody(after error: any Error) -> Bool {
        guard let error = error as? APIError else { return false }
        return error.kind == .transport(.connectionLost) || error.kind == .transport(.timedOut)
    }

    /// The largest piece handed to the reader at once.
    fileprivate static let largestPiece = 256 * 1024

    /// The next piece as the transport handed it over (encoded, when the body is).
    private func nextPiece() async throws -> Data? {
        let (ready, resume) = state.withLock { state in state.take(options: options) }
        resume?()
        if let ready { return try ready.get() }
        betweenLooks?()
        return try await withCheckedThrowingContinuation { continuation in
            let (now, resume) = state.withLock { state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
                // A piece may have come in since the first look (and the transport paused after it).
                let taken = state.take(options: options)
                if taken.ready != nil { return taken }
                // One reader at a time: a second one would take the first one's place, and the first
                // would wait for ever.
                guard state.reader == nil else { return (.failure(Self.secondReaderError), nil) }
                state.reader = continuation
                return (nil, nil)
            }
            resume?()
            if let now { continuation.resume(with: now) }
        }
    }

    /// Ends the body: the reader gets what is buffered, then `nil` or the error (a cancellation:
    /// nothing more, at once). The first end wins;
    /// the head's waiter, if any, gets `error` (or a missing-head error).
    func finish(_ result: Result<Void, any Error>) {
        let waiters = state.withLock { $0.finish(result) }
        // A paused transport wakes up to find the exchange over.
        waiters.resume?()
        waiters.reader?.resume(with: result.map { nil })
        if let headWaiter = waiters.head {
            switch result {
            case .failure(let error): headWaiter.resume(throwing: error)
            case .success:
                headWaiter.resume(
                    throwing: APIError(.transport(.badResponse), message: "the exchange ended without a head"))
            }
        }
    }

    // MARK: Errors

    static let secondReaderError = APIError(
        .invalidRequest,
        message: "a stream is read by one reader at a time, and another reader is waiting for its next piece")

    private static func replayError(_ head: HTTPResponse) -> APIError {
        APIError(
            .middleware,
            message: "the stream's request was sent again after its head reached the caller (a retry or a replay); "
                + "a stream's body cannot be spliced from two responses",
            response: head)
    }

    private func backlogError() -> APIError {
        APIError(
            .transport(.responseTooLarge),
            message: "the stream's reader fell more than \(options.maximumBacklog) bytes behind a transport that "
                + "cannot pause the network (URLSession on Linux); read faster, raise StreamOptions.maximumBacklog, "
                + "or use CurlTransport, which pauses")
    }

    private func cutError(_ response: HTTPResponse) -> APIError {
        APIError(
            .unacceptableStatus(response.status),
            message:
                "the server answered \(response.status) with an error body over \(options.maximumErrorBodySize) bytes",
            response: response)
    }
}
