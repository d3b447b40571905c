import Foundation
import Testing

@testable import Courier

/// The buffer between a transport and a stream's reader, driven the way a pausing transport drives
/// it (CurlTransport: pieces while there is room, then a pause until the reader calls it back).
@Suite("Stream buffer")
struct StreamBufferTests {
    /// A transport that pauses: pushes pieces while the buffer has room, then waits to be resumed,
    /// and goes on on its own thread (as a loop thread takes a resume command), unless told to go on
    /// at once on the reader's.
    private final class PausingSource: Sendable {
        let buffer: StreamBuffer
        let pieceSize: Int
        private let state = Locked((sent: 0, total: 0, isPaused: false))

        let resumesInline: Bool

        init(buffer: StreamBuffer, pieceSize: Int, total: Int, resumesInline: Bool = false) {
            self.buffer = buffer
            self.pieceSize = pieceSize
            self.resumesInline = resumesInline
            state.withLock { $0.total = total }
        }

        private let pumping = NSLock()

        /// Pushes pieces until the buffer has no room or the body is all sent.
        func pump() throws {
            pumping.lock()
            defer { pumping.unlock() }
            while true {
                let next = state.withLock { state -> Int? in
                    guard !state.isPaused, state.sent < state.total else { return nil }
                    return min(pieceSize, state.total - state.sent)
                }
                guard let next else { return }
                let hasRoom = buffer.hasRoom { [self] in
                    state.withLock { $0.isPaused = false }
                    if resumesInline {
                        try? pump()
                    } else {
                        DispatchQueue.global().async { try? self.pump() }
                    }
                }
                guard hasRoom else {
                    state.withLock { $0.isPaused = true }
                    return
                }
                try buffer.receive(Data(repeating: 7, count: next))
                let done = state.withLock { state -> Bool in
                    state.sent += next
                    return state.sent == state.total
                }
                if done { buffer.finish(.success(())) }
            }
        }
    }

    private func makeBuffer(bufferSize: Int) throws -> StreamBuffer {
        let buffer = StreamBuffer(acceptableStatuses: .success, options: StreamOptions(bufferSize: bufferSize))
        #expect(try buffer.responseHeadArrived(HTTPResponse(status: .ok)))
        return buffer
    }

    @Test("a reader slower than the network holds no more than the buffer, however much it read")
    func slowReaderMemory() async throws {
        let bufferSize = 1 << 20
        let buffer = try makeBuffer(bufferSize: bufferSize)
        let source = PausingSource(buffer: buffer, pieceSize: 16 << 10, total: 64 << 20, resumesInline: true)
        try source.pump()
        var read = 0
        var mostHeld = 0
        // The source tops the buffer up whenever the reader calls it back, so the reader never
        // finds it empty: the case where pieces read used to stay referenced until the end.
        while let piece = try await buffer.next() {
            read += piece.count
            mostHeld = max(mostHeld, buffer.retainedByteCount)
        }
        #expect(read == 64 << 20)
        #expect(mostHeld <= bufferSize + (16 << 10), "the buffer held \(mostHeld >> 10) KiB")
    }

    @Test("a piece that arrives between the reader's two looks, and pauses the transport, is read and wakes it")
    func pieceBetweenLooks() async throws {
        let source = Locked<PausingSource?>(nil)
        // A buffer of one byte: one piece fills it, and the transport pauses after each.
        let buffer = StreamBuffer(
            acceptableStatuses: .success, options: StreamOptions(bufferSize: 1),
            betweenLooks: { try? source.withLock { $0 }?.pump() })
        #expect(try buffer.responseHeadArrived(HTTPResponse(status: .ok)))
        source.withLock { $0 = PausingSource(buffer: buffer, pieceSize: 1000, total: 64_000) }
        let read = try await withTimeout(.seconds(20)) {
            var read = 0
            while let piece = try await buffer.next() { read += piece.count }
            return read
        }
        #expect(read == 64_000)
    }

    @Test("a second reader while one waits is refused; the first still gets the body")
    func secondReader() async throws {
        let buffer = try makeBuffer(bufferSize: 1 << 20)
        let first = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(50))
        let error = await #expect(throws: APIError.self) {
            _ = try await withTimeout(.seconds(20)) { try await buffer.next() }
        }
        #expect(error?.message.contains("one reader") == true, "\(String(describing: error))")
        try buffer.receive(Data("hello".utf8))
        let piece = try await withTimeout(.seconds(20)) { try await first.value }
        #expect(piece == Data("hello".utf8))
    }

    /// The operation's result, or a failure once `limit` passes: a hang fails the test in seconds,
    /// even one that ignores cancellation (the operation is left behind).
    private func withTimeout<T: Sendable>(
        _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let waiter = Locked<CheckedContinuation<T, any Error>?>(nil)
        @Sendable func end(_ result: Result<T, any Error>) {
            waiter.withLock { waiter in
                defer { waiter = nil }
                return waiter
            }?.resume(with: result)
        }
        return try await withCheckedThrowingContinuation { continuation in
            waiter.withLock { $0 = continuation }
            Task {
                do {
                    end(.success(try await operation()))
                } catch {
                    end(.failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: limit)
                end(.failure(Hang(limit: limit)))
            }
        }
    }

    private struct Hang: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "no answer within \(limit)" }
    }

    /// 1 MiB of zeros, gzipped (1 KB).
    private static let gzippedZeros = Data(
        base64Encoded:
            "H4sIAAAAAAACA+3BMQEAAADCoPVPbQhfoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPgMc6jinAAAQAA=="
    )!

    @Test("codings sent as several lines are several codings; a body that is not there is not decoded")
    func contentEncodingLines() throws {
        func head(_ status: HTTPStatus, _ codings: [String], length: String? = nil) -> HTTPResponse {
            var headers = HTTPHeaders()
            for coding in codings { headers.add(.contentEncoding, coding) }
            if let length { headers.add(.contentLength, length) }
            return HTTPResponse(status: status, headers: headers)
        }
        let options = StreamOptions()
        for codings in [["gzip", "gzip"], ["gzip", "br"], ["br"]] {
            let buffer = StreamBuffer(acceptableStatuses: .success, options: options)
            let error = #expect(throws: APIError.self, "\(codings)") {
                _ = try buffer.responseHeadArrived(head(.ok, codings), bodyIsEncoded: true)
            }
            #expect(error?.kind == .transport(.badResponse))
        }
        // No body to decode: a 204, a 304, a length of zero, a HEAD request.
        for response in [head(.noContent, ["br"]), head(HTTPStatus(code: 304), ["br"]), head(.ok, ["br"], length: "0")]
        {
            let buffer = StreamBuffer(acceptableStatuses: AcceptableStatuses(200..<400), options: options)
            #expect(try buffer.responseHeadArrived(response, bodyIsEncoded: true), "\(response.status)")
        }
        let headRequest = StreamBuffer(acceptableStatuses: .success, options: options, expectsBody: false)
        #expect(try headRequest.responseHeadArrived(head(.ok, ["br"]), bodyIsEncoded: true))
        // identity on one line, gzip on the next: decoded as gzip.
        let buffer = StreamBuffer(acceptableStatuses: .success, options: options)
        #expect(try buffer.responseHeadArrived(head(.ok, ["identity", "gzip"]), bodyIsEncoded: true))
        try buffer.receive(Self.gzippedZeros)
        buffer.finish(.success(()))
    }

    @Test("a cancelled compressed stream hands over nothing more, whatever its decoder still holds")
    func cancelWhileDecoding() async throws {
        let buffer = StreamBuffer(acceptableStatuses: .success, options: StreamOptions())
        var headers = HTTPHeaders()
        headers.add(.contentEncoding, "gzip")
        #expect(try buffer.responseHeadArrived(HTTPResponse(status: .ok, headers: headers), bodyIsEncoded: true))
        try buffer.receive(Self.gzippedZeros)
        let first = try await buffer.next()
        #expect(first?.count == 256 * 1024)
        buffer.finish(.failure(CancellationError()))
        await #expect(throws: CancellationError.self) { _ = try await buffer.next() }
    }

    @Test("a body cut by the network hands over what arrived before the cut, then the error; a cancelled one nothing")
    func cutAfterPieces() async throws {
        let lost = APIError(.transport(.connectionLost), message: "cut")
        let buffer = StreamBuffer(acceptableStatuses: .success, options: StreamOptions())
        #expect(try buffer.responseHeadArrived(HTTPResponse(status: .ok)))
        try buffer.receive(Data("id: 1\ndata: one\n\n".utf8))
        buffer.finish(.failure(lost))
        #expect(try await buffer.next() == Data("id: 1\ndata: one\n\n".utf8))
        await #expect(throws: APIError.self) { _ = try await buffer.next() }

        var headers = HTTPHeaders()
        headers.add(.contentEncoding, "gzip")
        let encoded = StreamBuffer(acceptableStatuses: .success, options: StreamOptions())
        #expect(try encoded.responseHeadArrived(HTTPResponse(status: .ok, headers: headers), bodyIsEncoded: true))
        try encoded.receive(Self.gzippedZeros.prefix(Self.gzippedZeros.count - 10))
        encoded.finish(.failure(lost))
        #expect(try await encoded.next()?.count == 256 * 1024)

        let cancelled = StreamBuffer(acceptableStatuses: .success, options: StreamOptions())
        #expect(try cancelled.responseHeadArrived(HTTPResponse(status: .ok)))
        try cancelled.receive(Data("data: two\n\n".utf8))
        cancelled.finish(.failure(CancellationError()))
        await #expect(throws: CancellationError.self) { _ = try await cancelled.next() }
    }

    @Test("a cancellation after a cut drops what waits: reading then throws CancellationError")
    func cancelAfterCut() async throws {
        let buffer = StreamBuffer(acceptableStatuses: .success, options: StreamOptions())
        #expect(try buffer.responseHeadArrived(HTTPResponse(status: .ok)))
        try buffer.receive(Data(count: 50_000))
        buffer.finish(.failure(APIError(.transport(.connectionLost), message: "cut")))
        buffer.finish(.failure(CancellationError()))
        #expect(buffer.retainedByteCount == 0)
        await #expect(throws: CancellationError.self) { _ = try await buffer.next() }
    }
}
