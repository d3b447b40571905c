import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's end of a WebSocket that ``StubTransport`` opened: a test's script reads the client's
/// messages and sends its own, as a server would.
///
/// ```swift
/// let stub = StubTransport().onWebSocket("chat") { peer in
///     for try await message in peer.messages { try await peer.send(message) }   // echo
/// }
/// ```
///
/// The peer speaks RFC 6455 as a server: its frames go out unmasked, and a client frame that is not
/// masked fails the connection with 1002. It answers pings (unless ``answersPings`` is turned
/// off) and echoes the client's close frame, after which ``messages`` ends and the connection
/// closes. It never agrees to compression. When the script returns with the socket still open, the
/// peer closes it with 1000 (normal closure); when the script throws, the peer drops the
/// connection without a close frame.
public final class StubWebSocketPeer: Sendable {
    private struct State: Sendable {
        var answersPings = true
        var answersClose = true
        var hasSentClose = false
        var clientClose: WebSocketClose?
        var pingsReceived = 0
        var isOver = false
    }

    /// The client's opening handshake, as it arrived.
    public let request: HTTPRequest
    /// The subprotocol the stub agreed to, `nil` for none.
    public let subprotocol: String?
    /// The client's messages, in order. The sequence ends when the client's close frame arrives
    /// (see ``clientClose``) and throws when the connection ends without one or the client breaks
    /// the protocol.
    public let messages: AsyncThrowingStream<WebSocketMessage, any Error>

    private let delivered: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let state = Locked(State())
    /// Client to server, and server to client.
    let incoming: StubByteQueue
    let outgoing: StubByteQueue
    private let encoder = WebSocketFrameEncoder(maskKeys: .unmasked)

    init(request: HTTPRequest, subprotocol: String?, incoming: StubByteQueue, outgoing: StubByteQueue) {
        self.request = request
        self.subprotocol = subprotocol
        self.incoming = incoming
        self.outgoing = outgoing
        (messages, delivered) = AsyncThrowingStream.makeStream()
    }

    /// Whether the peer answers the client's pings with pongs: `true` by default; turn it off to
    /// play a peer that is gone (a keepalive test).
    public var answersPings: Bool {
        get { state.withLock { $0.answersPings } }
        set { state.withLock { $0.answersPings = newValue } }
    }

    /// Whether the peer answers the client's close frame: `true` by default; turn it off to play a
    /// peer that never completes the close handshake (a close timeout test).
    public var answersClose: Bool {
        get { state.withLock { $0.answersClose } }
        set { state.withLock { $0.answersClose = newValue } }
    }

    /// The close frame the client sent, once it did (1005 for one without a code).
    public var clientClose: WebSocketClose? { state.withLock { $0.clientClose } }

    /// How many reads the client asked of the connection (flow-control tests).
    package var clientReadCount: Int { outgoing.readCount }
    /// Whether a send of the peer's waits for the client to read (flow-control tests).
    package var isSendWaiting: Bool { outgoing.hasWaitingWriter }

    /// How many pings the client sent.
    public var pingsReceived: Int { state.withLock { $0.pingsReceived } }

    /// Sends a message to the client; waits while the client is not reading (flow control).
    ///
    /// - Throws: `APIError` (`TransportFailure.connectionLost`) once the connection is closed.
    public func send(_ message: WebSocketMessage) async throws {
        switch message {
        case .text(let text):
            try await outgoing.write(Array(text.utf8).withUnsafeBytes { encoder.messageFrames(.text, payload: $0) })
        case .binary(let data):
            try await outgoing.write(data.withUnsafeBytes { encoder.messageFrames(.binary, payload: $0) })
        }
    }

    /// Sends a text message to the client.
    ///
    /// - Throws: `APIError` once the connection is closed.
    public func send(text: String) async throws {
        try await send(.text(text))
    }

    /// Sends a ping with `payload` (at most 125 bytes); the client answers it with a pong.
    ///
    /// - Throws: `APIError` once the connection is closed.
    public func ping(_ payload: [UInt8] = []) async throws {
        try await outgoing.write(encoder.controlFrame(.ping, payload: Array(payload.prefix(125))))
    }

    /// Sends bytes as they are, without framing: to play a server that breaks the protocol (a
    /// masked frame, a reserved bit, text that is not UTF-8).
    ///
    /// - Throws: `APIError` once the connection is closed.
    public func send(rawBytes: [UInt8]) async throws {
        try await outgoing.write(rawBytes)
    }

    /// Starts the close handshake: sends a close frame with `code` and `reason`; the client's
    /// answer ends ``messages`` and the connection.
    ///
    /// - Throws: `APIError` once the connection is closed.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws {
        let first = state.withLock { state in
            defer { state.hasSentClose = true }
            return !state.hasSentClose
        }
        guard first else { return }
        try await outgoing.write(
            encoder.controlFrame(.close, payload: WebSocketCloseFrame(code: code, reason: reason).payload))
    }

    /// Drops the connection without a close frame (the client reports 1006, abnormal closure).
    public func disconnect() {
        state.withLock { $0.isOver = true }
        outgoing.finish()
        incoming.abort()
        delivered.finish(throwing: StubByteQueue.resetError)
    }

    /// Runs the script, then closes (or drops the connection when it threw).
    func converse(_ script: @escaping @Sendable (StubWebSocketPeer) async throws -> Void) {
        Task { await self.readLoop() }
        Task {
            do {
                try await script(self)
                try? await close()
            } catch {
                disconnect()
            }
        }
    }

    /// Reads the client's frames: messages go to ``messages``; pings, pongs and closes are answered.
    private func readLoop() async {
        var parser = WebSocketFrameParser(maximumFramePayload: .max, readsClientFrames: true)
        guard var assembler = try? WebSocketMessageAssembler(maximumMessageSize: .max, compression: nil) else { return }
        do {
            while let bytes = try await incoming.read() {
                var outputs: [WebSocketMessageAssembler.Output] = []
                try parser.parse(bytes) { (event) throws(WebSocketProtocolViolation) in
                    if let output = try assembler.handle(event) { outputs.append(output) }
                }
                for output in outputs {
                    if try await handle(output) { return }
                }
            }
            disconnect()
        } catch let violation as WebSocketProtocolViolation {
            try? await outgoing.write(
                encoder.controlFrame(
                    .close, payload: WebSocketCloseFrame(code: violation.closeCode, reason: violation.reason).payload))
            disconnect()
        } catch {
            disconnect()
        }
    }

    /// Handles what a frame completed; `true` once the connection is over.
    private func handle(_ output: WebSocketMessageAssembler.Output) async throws -> Bool {
        switch output {
        case .message(let message):
            delivered.yield(message)
        case .ping(let payload):
            let answers = state.withLock { state in
                state.pingsReceived += 1
                return state.answersPings
            }
            if answers { try await outgoing.write(encoder.controlFrame(.pong, payload: payload)) }
        case .pong:
            break
        case .close(let frame):
            let close = WebSocketClose(code: frame.code ?? .noStatusReceived, reason: frame.reason)
            let (answers, echoes) = state.withLock { state in
                state.clientClose = close
                guard state.answersClose else { return (false, false) }
                defer { state.hasSentClose = true }
                return (true, !state.hasSentClose)
            }
            guard answers else { return false }
            if echoes {
                try? await outgoing.write(
                    encoder.controlFrame(.close, payload: WebSocketCloseFrame(code: frame.code).payload))
            }
            state.withLock { $0.isOver = true }
            delivered.finish()
            outgoing.finish()
            incoming.abort()
            return true
        }
        return false
    }
}
