import Foundation

/// A stream body between the task that iterates its sequence (the producer) and a transport thread
/// that must never wait (libcurl's read callback): a bounded buffer, filled by the producer, which
/// waits while it is full, and emptied by ``read(into:waker:)``, which answers at once.
///
/// The rules that keep the wire honest:
/// - with a declared length, the body's last byte is held back until the producer has ended, so a
///   producer with bytes to spare fails the call before the server has a complete request; a chunk
///   past the length is never buffered, and a producer that ends short fails the read that finds
///   the end (the request is cut, never ended as if complete);
/// - a producer that throws fails the next read (the transport aborts the half-sent request);
/// - ``close()`` cancels the producer's task and wakes it if it waits for room.
///
/// `Sendable`: its state is behind one lock; continuations and wakers are taken out under it and
/// called after it is released.
final class BodyStreamReader: Sendable {
    /// What a read found.
    enum Read {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing yet: the waker is called once there is something to read (or a failure).
        case wait
        /// The body is complete.
        case end
    }

    /// At most this many bytes are buffered before the producer waits (one chunk may go past it).
    static let capacity = 256 * 1024
    /// At most this many chunks are buffered (tiny chunks cost more than their bytes).
    static let maximumChunks = 1024

    private struct State {
        var chunks: [Data] = []
        /// The first chunk not fully read, and how far into it.
        var head = 0
        var headOffset = 0
        var buffered = 0
        var produced: Int64 = 0
        var consumed: Int64 = 0
        var isFinished = false
        var failure: (any Error)?
        var isClosed = false
        var roomWaiter: CheckedContinuation<Void, any Error>?
        var waker: (@Sendable () -> Void)?
        var producer: Task<Void, Never>?

        var isFull: Bool {
            buffered >= BodyStreamReader.capacity || chunks.count - head >= BodyStreamReader.maximumChunks
        }
    }

    /// The declared length, or `nil` when unknown.
    let length: Int64?
    let request: HTTPRequest
    private let state = Locked(State())

    /// Starts iterating the stream on a task of its own; the stream must not have been sent before.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/invalidRequest`` when it was.
    init(_ stream: HTTPBodyStream, request: HTTPRequest) throws {
        guard let pump = stream.claim() else { throw HTTPBodyStream.alreadySentError(request) }
        length = stream.length
        self.request = request
        // Weakly held: a reader nobody reads any more cancels its producer when it goes away.
        let producer = Task { [weak self] in
            do {
                try await pump { [weak self] chunk in
                    guard let self else { throw CancellationError() }
                    try await self.put(chunk)
                }
                self?.finish(nil)
            } catch {
                self?.finish(error)
            }
        }
        state.withLock { $0.producer = producer }
    }

    deinit {
        state.withLock { $0.producer }?.cancel()
    }

    /// How many bytes were read so far.
    var consumed: Int64 { state.withLock { $0.consumed } }

    /// Ends the stream early: the producer's task is cancelled, and a producer waiting for room
    /// fails with `CancellationError`.
    func close() {
        let (producer, waiter, waker) = state.withLock { state in
            state.isClosed = true
            defer { (state.roomWaiter, state.waker) = (nil, nil) }
            return (state.producer, state.roomWaiter, state.waker)
        }
        producer?.cancel()
        waiter?.resume(throwing: CancellationError())
        waker?()
    }

    /// Copies the next bytes into `buffer`, without waiting.
    ///
    /// - Parameter waker: Called (on the producer's task) when a read that found nothing can find
    ///   something now; kept only when the answer is ``Read/wait``.
    /// - Throws: ``APIError``: the producer threw (kind ``APIError/Kind/transport(_:)``), or yielded
    ///   more or fewer bytes than the declared length (``TransportFailure/bodyLengthMismatch``).
    func read(into buffer: UnsafeMutableRawBufferPointer, waker: @autoclosure () -> @Sendable () -> Void) throws
        -> Read
    {
        let (read, room) = try state.withLock { state throws -> (Read, CheckedContinuation<Void, any Error>?) in
            if let failure = state.failure { throw failure }
            if state.isClosed { throw CancellationError() }
            var limit = buffer.count
            if let length, !state.isFinished {
                // The last byte waits for the producer's end: only then is the length known to hold.
                limit = Int(min(Int64(limit), max(0, length - state.consumed - 1)))
            }
            let count = Self.copy(from: &state, into: buffer, limit: limit)
            if count > 0 {
                let room = state.isFull ? nil : state.roomWaiter
                if room != nil { state.roomWaiter = nil }
                return (.bytes(count), room)
            }
            if state.isFinished, state.buffered == 0 {
                if let length, state.consumed != length {
                    let failure = mismatch(sent: state.consumed, produced: state.produced)
                    state.failure = failure
                    throw failure
                }
                return (.end, nil)
            }
            state.waker = waker()
            return (.wait, nil)
        }
        room?.resume()
        return read
    }

    /// Moves up to `limit` buffered bytes into `buffer`.
    private static func copy(from state: inout State, into buffer: UnsafeMutableRawBufferPointer, limit: Int) -> Int {
        var count = 0
        while count < limit, state.head < state.chunks.count {
            let chunk = state.chunks[state.head]
            let start = chunk.startIndex + state.headOffset
            let take = min(limit - count, chunk.endIndex - start)
            chunk.copyBytes(
                to: UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + take)]).bindMemory(to: UInt8.self),
                from: start..<(start + take))
            count += take
            state.headOffset += take
            if start + take == chunk.endIndex {
                state.chunks[state.head] = Data()
                state.head += 1
                state.headOffset = 0
            }
        }
        if state.head > 64, state.head * 2 > state.chunks.count {
            state.chunks.removeFirst(state.head)
            state.head = 0
        }
        state.buffered -= count
        state.consumed += Int64(count)
        return count
    }

    /// Buffers a chunk from the producer; waits while the buffer is full.
    private func put(_ chunk: Data) async throws {
        // An empty chunk carries nothing; buffered, it would count against the chunk limit forever
        // when the declared length lets no read take it.
        if chunk.isEmpty { return }
        let waker: (@Sendable () -> Void)? = try state.withLock { state in
            if state.isClosed { throw CancellationError() }
            if let length, state.produced + Int64(chunk.count) > length {
                state.failure = mismatch(sent: state.consumed, produced: state.produced + Int64(chunk.count))
            } else {
                state.chunks.append(chunk)
                state.buffered += chunk.count
                state.produced += Int64(chunk.count)
            }
            defer { state.waker = nil }
            return state.waker
        }
        waker?()
        if state.withLock({ $0.failure != nil }) { throw CancellationError() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let answer: Result<Void, any Error>? = state.withLock { state in
                    if state.isClosed || Task.isCancelled { return .failure(CancellationError()) }
                    guard state.isFull else { return .success(()) }
                    state.roomWaiter = continuation
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.roomWaiter = nil }
                return state.roomWaiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The producer ended, by itself (`nil`) or with an error.
    private func finish(_ error: (any Error)?) {
        let waker = state.withLock { state -> (@Sendable () -> Void)? in
            if let error, state.failure == nil, !state.isClosed {
                state.failure = APIError(
                    .transport(.other), message: "the request body stream failed: \(error)", request: request,
                    underlyingError: error)
            }
            state.isFinished = true
            defer { state.waker = nil }
            return state.waker
        }
        waker?()
    }

    private func mismatch(sent: Int64, produced: Int64) -> APIError {
        let declared = length ?? 0
        let what = produced > declared ? "more than" : "only \(produced) of"
        return APIError(
            .transport(.bodyLengthMismatch),
            message: "the request body stream yielded \(what) the \(declared) bytes it declared; the request was cut "
                + "after \(sent) bytes, never sent whole",
            request: request)
    }
}
