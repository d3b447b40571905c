import CCourierCurl
import Foundation

/// One WebSocket connection of a ``CurlTransport``: libcurl connects in connect-only mode (TCP,
/// proxy, TLS, with the transport's settings) on a multi handle of its own, so the connection is
/// never pooled, pruned nor reused; Courier then writes the handshake, reads the head and moves the
/// channel's bytes with `curl_easy_send` and `curl_easy_recv`, all on the loop thread.
///
/// The loop looks at every socket on each turn (``CurlLoop/serviceSockets()``): it reads the socket
/// only while a ``read()`` waits (flow control: at most one 64 KiB buffer is in hand), writes while
/// a ``write(_:)`` waits, and asks its poll for those events only. Callers hand work over through
/// `shared`, under a lock, then wake the loop; whoever ends a waiting call takes its continuation
/// out under the lock and resumes it after.
///
/// `@unchecked Sendable`: the `// Loop thread` fields are touched only on the loop thread (and in
/// `init`, before the loop sees the object); `shared` is a ``Locked`` value.
final class CurlWebSocket: @unchecked Sendable {
    typealias Opening = (response: HTTPResponse, channel: (any WebSocketChannel)?)

    /// How the read side ended.
    enum ReadEnd {
        case peerClosed
        case failed(any Error)
    }

    struct Shared {
        var opening: UnsafeContinuation<Opening, any Error>?
        var read: UnsafeContinuation<[UInt8]?, any Error>?
        var write: UnsafeContinuation<Void, any Error>?
        /// Bytes of a waiting write the loop has not taken yet.
        var pendingWrite: [UInt8]?
        /// The bytes that came after the `101` head: the first read's.
        var leftover: [UInt8] = []
        var readEnd: ReadEnd?
        /// Why the connection ended, once it did: later writes fail with it.
        var failure: (any Error)?
        /// Whether the connection is to be (or has been) closed: the loop frees it.
        var isClosed = false
    }
    let shared = Locked(Shared())

    /// The request as sent (ws and wss mapped to http and https), its options and error mapping.
    let transfer: CurlTransfer
    /// The caller's request, for the response's URL and errors.
    let request: HTTPRequest
    /// The handshake's bytes: request line, Host, the request's headers.
    let handshakeBytes: [UInt8]
    /// The transport that opened the socket: an open socket keeps it (and so its loop threads)
    /// alive, as a request in flight does, after the caller dropped its client and transport. The
    /// loop lets the socket go once it is closed; the transport's `deinit` then only queues the
    /// loops' shutdown, so it may run on a loop thread.
    let owner: CurlTransport
    weak var loop: CurlLoop?

    // MARK: Loop thread

    /// How far a read of the handshake went: to its end, until the socket would block, or one
    /// read, then back to the loop (which calls again at once: TLS may hold bytes no poll announces).
    enum Progress {
        case done
        case wouldBlock
        case again
    }

    enum Phase {
        case connecting
        case sendingHandshake
        case readingHead
        case readingRefusal(HTTPResponse, RefusalFraming)
        case open
    }
    var phase = Phase.connecting
    var multi: OpaquePointer?
    var easy: OpaquePointer?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CCURL_ERROR_SIZE) + 1)
    var socket: Int32 = -1
    /// What is being sent (the handshake, then one write at a time) and how much went out.
    var outgoing: [UInt8] = []
    var outgoingSent = 0
    var isSending = false
    /// The response head and what follows it, until the head is parsed; then a refusal's body.
    var incoming: [UInt8] = []
    /// Where the search for the head's end goes on.
    var headScanned = 0
    /// The interim (`1xx`) heads read so far: a server may send a few, not an endless stream.
    var interimHeads = 0
    /// A chunked refusal's body, decoded as it comes.
    var refusalDecoder = ChunkedBodyDecoder(limit: maximumRefusalBody)
    /// The bytes read for a refused handshake's body so far, framing included.
    var refusalBytesRead = 0

    /// The most interim heads before the handshake's answer.
    static let maximumInterimHeads = 16

    /// The largest response head, and the largest body of a refused handshake.
    static let maximumHeadSize = CurlTransfer.maximumHeadSize
    static let maximumRefusalBody = 1 << 20
    /// The most bytes read for a refused handshake's body, chunk framing included.
    static let maximumRefusalWire = 4 * maximumRefusalBody
    /// The most one read takes from the connection: the most the loop holds for a reader.
    let readSize: Int

    init(request: HTTPRequest, transfer: CurlTransfer, handshakeBytes: [UInt8], readSize: Int, owner: CurlTransport) {
        self.readSize = readSize
        self.owner = owner
        self.request = request
        self.transfer = transfer
        self.handshakeBytes = handshakeBytes
        errorBuffer.pointee = 0
    }

    deinit {
        errorBuffer.deallocate()
    }

    // MARK: Any thread

    /// Waits for the handshake's outcome; the caller's cancellation closes the connection.
    func open(on loop: CurlLoop) async throws -> Opening {
        self.loop = loop
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let isClosed = shared.withLock { shared in
                    if !shared.isClosed { shared.opening = continuation }
                    return shared.isClosed
                }
                if isClosed {
                    continuation.resume(throwing: CancellationError())
                } else {
                    loop.open(self)
                }
            }
        } onCancel: {
            close()
        }
    }

    func read() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<[UInt8]?, any Error>) in
                let now: Result<[UInt8]?, any Error>? = shared.withLock { shared in
                    if !shared.leftover.isEmpty {
                        defer { shared.leftover = [] }
                        return .success(shared.leftover)
                    }
                    switch shared.readEnd {
                    case .peerClosed: return .success(nil)
                    case .failed(let error): return .failure(error)
                    case nil: break
                    }
                    if shared.isClosed { return .failure(shared.failure ?? CancellationError()) }
                    if shared.read != nil {
                        return .failure(
                            APIError(
                                .transport(.other), message: "a WebSocket channel reads one at a time",
                                request: request))
                    }
                    shared.read = continuation
                    return nil
                }
                if let now {
                    continuation.resume(with: now)
                } else {
                    loop?.wake()
                }
            }
        } onCancel: {
            close()
        }
    }

    func write(_ bytes: [UInt8]) async throws {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let refusal: (any Error)? = shared.withLock { shared in
                    if shared.isClosed { return shared.failure ?? CancellationError() }
                    if shared.write != nil {
                        return APIError(
                            .transport(.other), message: "a WebSocket channel writes one at a time", request: request)
                    }
                    if bytes.isEmpty { return nil }
                    shared.write = continuation
                    shared.pendingWrite = bytes
                    return nil
                }
                if let refusal {
                    continuation.resume(throwing: refusal)
                } else if bytes.isEmpty {
                    continuation.resume()
                } else {
                    loop?.wake()
                }
            }
        } onCancel: {
            close()
        }
    }

    /// Ends the connection: waiting calls fail with `CancellationError` at once; the loop frees
    /// the handle (TLS close_notify, then TCP) on its next turn.
    func close() {
        end(CancellationError(), closing: true)
    }

    /// Ends the connection with `error` for every waiting call and every later one; `closing`:
    /// the caller closed it (reads fail too), else it failed (reads fail with the error).
    func end(_ error: any Error, closing: Bool) {
        let taken = shared.withLock { shared in
            let taken = (shared.opening, shared.read, shared.write)
            shared.opening = nil
            shared.read = nil
            shared.write = nil
            shared.pendingWrite = nil
            if !shared.isClosed {
                shared.isClosed = true
                shared.failure = error
                if shared.readEnd == nil, !closing { shared.readEnd = .failed(error) }
            }
            return taken
        }
        taken.0?.resume(throwing: error)
        taken.1?.resume(throwing: error)
        taken.2?.resume(throwing: error)
        loop?.wake()
    }
}

/// The channel a caller holds: the socket closes when the last reference goes.
final class CurlWebSocketChannel: WebSocketChannel {
    let socket: CurlWebSocket

    init(_ socket: CurlWebSocket) {
        self.socket = socket
    }

    deinit {
        socket.close()
    }

    func read() async throws -> [UInt8]? {
        try await socket.read()
    }

    func write(_ bytes: [UInt8]) async throws {
        try await socket.write(bytes)
    }

    func close() {
        socket.close()
    }
}
