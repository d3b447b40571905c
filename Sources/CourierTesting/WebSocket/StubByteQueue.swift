import Courier
import Foundation

/// One direction of an in-memory connection: writes queue as chunks, at most `capacity` of them;
/// a write past that waits for the reader (TCP's flow control, in memory), and a read takes one
/// chunk.
///
/// The writer ends it with ``finish()`` (the reader gets what is queued, then `nil`: a FIN); the
/// reader with ``abort()`` (what is queued is dropped, a waiting read gets `CancellationError` and
/// writes fail with `TransportFailure.connectionLost`: a reset).
final class StubByteQueue: Sendable {
    private struct State: Sendable {
        var chunks: [[UInt8]] = []
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        var writers: [(bytes: [UInt8], continuation: CheckedContinuation<Void, any Error>)] = []
        var isFinished = false
        var isAborted = false
        var reads = 0
    }

    private let state = Locked(State())
    let capacity: Int

    init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
    }

    /// How many reads were asked for.
    var readCount: Int { state.withLock { $0.reads } }
    /// Whether a write waits for room.
    var hasWaitingWriter: Bool { state.withLock { !$0.writers.isEmpty } }

    func write(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let resume: (@Sendable () -> Void)? = state.withLock { state in
                if state.isAborted || state.isFinished {
                    return { continuation.resume(throwing: Self.resetError) }
                }
                if let reader = state.reader {
                    state.reader = nil
                    return {
                        reader.resume(returning: bytes)
                        continuation.resume()
                    }
                }
                guard state.chunks.count < capacity else {
                    state.writers.append((bytes, continuation))
                    return nil
                }
                state.chunks.append(bytes)
                return { continuation.resume() }
            }
            resume?()
        }
    }

    func read() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
            let resume: (@Sendable () -> Void)? = state.withLock { state in
                state.reads += 1
                if state.isAborted { return { continuation.resume(throwing: CancellationError()) } }
                if !state.chunks.isEmpty {
                    let chunk = state.chunks.removeFirst()
                    var writer: CheckedContinuation<Void, any Error>?
                    if !state.writers.isEmpty {
                        let waiting = state.writers.removeFirst()
                        state.chunks.append(waiting.bytes)
                        writer = waiting.continuation
                    }
                    return { [writer] in
                        continuation.resume(returning: chunk)
                        writer?.resume()
                    }
                }
                if state.isFinished { return { continuation.resume(returning: nil) } }
                state.reader = continuation
                return nil
            }
            resume?()
        }
    }

    /// The writer is done: the reader gets what is queued, then `nil`.
    func finish() {
        let (reader, writers) = state.withLock { state in
            state.isFinished = true
            let writers = state.writers
            state.writers = []
            defer { state.reader = nil }
            return (state.chunks.isEmpty ? state.reader : nil, writers)
        }
        reader?.resume(returning: nil)
        for writer in writers { writer.continuation.resume(throwing: Self.resetError) }
    }

    /// The reader is gone: queued bytes are dropped and every waiter fails.
    func abort() {
        let (reader, writers) = state.withLock { state in
            state.isAborted = true
            state.chunks = []
            let writers = state.writers
            state.writers = []
            defer { state.reader = nil }
            return (state.reader, writers)
        }
        reader?.resume(throwing: CancellationError())
        for writer in writers { writer.continuation.resume(throwing: Self.resetError) }
    }

    static let resetError = APIError(
        .transport(.connectionLost), message: "the stub WebSocket's connection was closed by the other side")
}

/// The client's end of a stub WebSocket connection: reads what the peer wrote, writes to the peer.
final class StubWebSocketChannel: WebSocketChannel {
    let incoming: StubByteQueue
    let outgoing: StubByteQueue

    init(incoming: StubByteQueue, outgoing: StubByteQueue) {
        self.incoming = incoming
        self.outgoing = outgoing
    }

    func read() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await incoming.read()
        } onCancel: {
            close()
        }
    }

    func write(_ bytes: [UInt8]) async throws {
        try await withTaskCancellationHandler {
            try await outgoing.write(bytes)
        } onCancel: {
            close()
        }
    }

    func close() {
        outgoing.finish()
        incoming.abort()
    }
}
