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
/// on its task. Every piece of state is behind one lock, and no continuation or resume handler is
/// called while it is held; the reader's decoder is behind a lock of its own, so inflating never
/// holds up the transport.
final class StreamBuffer: ResponseBodyConsumer, Sendable {
    private struct State {
        /// The accepted head, once it arrived.
        var head: HTTPResponse?
        var headWaiter: CheckedContinuation<HTTPResponse, any Error>?
        /// The head of an unacceptable status, and what is kept of its body.
        var errorHead: HTTPResponse?
        var errorBody = Data()
        /// Decodes an encoded error body; whether the rest of it is dropped (a coding Courier cannot
        /// decode, or bytes that do not decode).
        var errorDecoder: ContentDecoder?
        var dropsErrorBody = false
        var pieces: [Data] = []
        var firstPiece = 0
        var buffered = 0
        var reader: CheckedContinuation<Data?, any Error>?
        /// How the body ended: `nil` while it goes on.
        var end: Result<Void, any Error>?
        /// The transport's way to go on after a pause.
        var resume: (@Sendable () -> Void)?
        var delivered: Int64 = 0
    }

    private let acceptableStatuses: AcceptableStatuses
    private let options: StreamOptions
    /// Whether the request's response can have a body (not a HEAD request's).
    private let expectsBody: Bool
    private let state = Locked(State())
    /// The reader's decoder, when the body arrives encoded.
    private let decoding = Locked<ContentDecoder?>(nil)
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
            decoding.withLock { $0 = decoder }
            let waiter = try state.withLock { state -> CheckedContinuation<HTTPResponse, any Error>? in
                guard state.head == nil else { throw Self.replayError(head) }
                state.head = head
                state.errorHead = nil
                defer { state.headWaiter = nil }
                return state.headWaiter
            }
            waiter?.resume(returning: head)
            return true
        }
        let limit = options.maximumErrorBodySize
        // An error page Courier cannot decode keeps its status and headers, without its body.
        var decoder: ContentDecoder?
        var dropsBody = false
        do {
            decoder = try ContentDecoder.coding(of: contentEncoding).map { try ContentDecoder($0) }
        } catch {
            dropsBody = true
        }
        if contentEncoding == nil, let announced = head.headers[.contentLength].flatMap(Int.init), announced > limit {
            throw cutError(head)
        }
        try state.withLock { state in
            guard state.head == nil else { throw Self.replayError(head) }
            state.errorHead = head
            state.errorBody = Data()
            state.errorDecoder = decoder
            state.dropsErrorBody = dropsBody
        }
        return true
    }

    func receive(_ piece: Data) throws {
        let (reader, errorResponse, isBehind) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, HTTPResponse?, Bool) in
            if var errorHead = state.errorHead {
                guard !state.dropsErrorBody else { return (nil, nil, false) }
                let room = max(0, options.maximumErrorBodySize - state.errorBody.count)
                var piece = piece
                if let decoder = state.errorDecoder {
                    // One byte past the room tells a body over the limit; no more is inflated.
                    decoder.feed(piece)
                    guard let decoded = try? decoder.decode(maximum: room + 1) else {
                        state.dropsErrorBody = true
                        return (nil, nil, false)
                    }
                    piece = decoded
                }
                state.errorBody.append(piece.prefix(room))
                guard piece.count > room else { return (nil, nil, false) }
                errorHead.body = state.errorBody
                return (nil, errorHead, false)
            }
            guard state.end == nil else { return (nil, nil, false) }
            state.delivered += Int64(piece.count)
            if let reader = state.reader {
                state.reader = nil
                return (reader, nil, false)
            }
            guard state.buffered + piece.count <= options.maximumBacklog else { return (nil, nil, true) }
            state.pieces.append(piece)
            state.buffered += piece.count
            return (nil, nil, false)
        }
        if isBehind { throw backlogError() }
        if let errorResponse { throw cutError(errorResponse) }
        reader?.resume(returning: piece)
    }

    func hasRoom(orWhenRoom resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.end == nil, state.buffered >= options.bufferSize else { return true }
            state.resume = resume
            return false
        }
    }

    var wantsEarlyHead: Bool { true }

    var mayPauseForLong: Bool { true }

    var forbidsReplay: Bool { state.withLock { $0.head != nil } }

    var streamedByteCount: Int64? { state.withLock { $0.delivered } }

    /// Whether the body ended (read to its end, failed or cancelled).
    var isOver: Bool { state.withLock { $0.end != nil } }

    /// The bytes the buffer keeps referenced, read or not (for tests of its memory bound).
    var retainedByteCount: Int { state.withLock { $0.pieces.reduce(0) { $0 + $1.count } } }

    // MARK: The caller's side

    /// Waits for the accepted head; throws when the exchange ends without one.
    func head() async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<HTTPResponse, any Error>? in
                if let head = state.head { return .success(head) }
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
            guard var head = state.errorHead else { return nil }
            head.body = state.errorBody
            return head
        }
    }

    /// The next piece of the body (the pieces waiting joined, up to 256 KiB), `nil` at its end.
    ///
    /// - Throws: ``APIError`` when a second reader asks while another one waits, or the exchange's
    ///   error once the pieces before it are read.
    func next() async throws -> Data? {
        guard decoding.withLock({ $0 != nil }) else { return try await nextPiece() }
        while true {
            // A cancelled or failed stream hands over nothing more, whatever its decoder still holds.
            if case .failure(let error)? = state.withLock({ $0.end }) { throw error }
            let decoded = try decode { try $0.decode(maximum: Self.largestPiece) }
            if !decoded.isEmpty { return decoded }
            guard let piece = try await nextPiece() else {
                _ = try decode { decoder in
                    try decoder.finish()
                    return Data()
                }
                return nil
            }
            decoding.withLock { $0?.feed(piece) }
        }
    }

    /// Runs `work` on the reader's decoder (one reader at a time, so its lock is never waited for);
    /// a decoding error ends the stream with it.
    private func decode(_ work: (ContentDecoder) throws -> Data) throws -> Data {
        do {
            return try decoding.withLock { decoder in try decoder.map(work) ?? Data() }
        } catch {
            finish(.failure(error))
            throw error
        }
    }

    /// The largest piece handed to the reader at once.
    private static let largestPiece = 256 * 1024

    /// The next piece as the transport handed it over (encoded, when the body is).
    private func nextPiece() async throws -> Data? {
        let (ready, resume) = state.withLock { state in Self.take(from: &state, options: options) }
        resume?()
        if let ready { return try ready.get() }
        betweenLooks?()
        return try await withCheckedThrowingContinuation { continuation in
            let (now, resume) = state.withLock { state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
                // A piece may have come in since the first look (and the transport paused after it).
                let taken = Self.take(from: &state, options: options)
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

    /// Takes the waiting pieces (joined, up to 256 KiB) or the end, and the transport's way to go on
    /// when the buffer is down to half; `nil` when there is nothing yet. A piece taken is released
    /// at once, so memory is bounded by what waits, however far the reader has read.
    private static func take(from state: inout State, options: StreamOptions)
        -> (ready: Result<Data?, any Error>?, resume: (@Sendable () -> Void)?)
    {
        guard state.firstPiece < state.pieces.count else {
            return (state.end.map { $0.map { nil } }, nil)
        }
        var piece = state.pieces[state.firstPiece]
        state.pieces[state.firstPiece] = Data()
        state.firstPiece += 1
        while state.firstPiece < state.pieces.count, piece.count < largestPiece {
            piece.append(state.pieces[state.firstPiece])
            state.pieces[state.firstPiece] = Data()
            state.firstPiece += 1
        }
        if state.firstPiece == state.pieces.count {
            state.pieces.removeAll(keepingCapacity: true)
            state.firstPiece = 0
        } else if state.firstPiece >= 64, state.firstPiece * 2 >= state.pieces.count {
            // The slots read are empty already; dropping them now and then keeps the array short.
            state.pieces.removeFirst(state.firstPiece)
            state.firstPiece = 0
        }
        state.buffered -= piece.count
        var resume: (@Sendable () -> Void)?
        if state.buffered <= options.bufferSize / 2 {
            resume = state.resume
            state.resume = nil
        }
        return (.success(piece), resume)
    }

    /// Ends the body: the reader gets what is buffered, then `nil` or the error. The first end wins;
    /// the head's waiter, if any, gets `error` (or a missing-head error).
    func finish(_ result: Result<Void, any Error>) {
        let (reader, headWaiter, resume) = state.withLock { state in
            guard state.end == nil else {
                return (
                    CheckedContinuation<Data?, any Error>?.none, CheckedContinuation<HTTPResponse, any Error>?.none,
                    (@Sendable () -> Void)?.none
                )
            }
            state.end = result
            if case .failure = result {
                // Nothing more will be read: let the memory go at once.
                state.pieces.removeAll()
                state.firstPiece = 0
                state.buffered = 0
            }
            defer {
                state.reader = nil
                state.headWaiter = nil
                state.resume = nil
            }
            return (state.reader, state.headWaiter, state.resume)
        }
        // A paused transport wakes up to find the exchange over.
        resume?()
        reader?.resume(with: result.map { nil })
        if let headWaiter {
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
