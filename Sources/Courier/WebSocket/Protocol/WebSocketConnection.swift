/// A client's WebSocket connection after the handshake, as a state machine without I/O (RFC 6455
/// §5–§7, RFC 7692): its transport feeds it events — bytes read, messages to send, a close asked
/// for, a timer that fired, the connection lost — and carries out the ``WebSocketAction``s each
/// returns, in order: bytes to write, messages to deliver, timers to start or cancel, the
/// connection to close, the ending. It never reads, writes or sleeps.
///
/// The behaviour:
/// - Frames and messages follow ``WebSocketFrameParser`` and ``WebSocketMessageAssembler``; a rule
///   broken fails the connection (RFC 6455 §7.1.7): a close frame with the violation's code (1002,
///   1007 or 1009) is written, then the connection is closed, and nothing more is read.
/// - A ping is answered with a pong carrying the same payload, at once (not after closing).
/// - The peer's close (valid: see ``WebSocketCloseFrame``) is echoed with its code, then the
///   connection is closed: ``WebSocketEnding/closed(_:initiatedByPeer:)``.
/// - ``close(code:reason:timeout:)`` writes a close frame and waits for the peer's: messages still
///   arrive meanwhile; the peer's close ends it, or the timeout does
///   (``WebSocketEnding/closeTimedOut``). Nothing is sent after a close frame.
/// - Messages are sent masked, compressed when permessage-deflate was agreed, in frames of at most
///   ``Configuration/maximumOutgoingFramePayload`` bytes.
///
/// ```swift
/// var connection = try WebSocketConnection(agreement: agreed)
/// for action in connection.receive(bytes) { … }   // .write, .deliver, .finish…
/// for action in try connection.send(.text("hi")) { … }
/// ```
///
/// Not `Sendable` (zlib streams): one transport owns it and calls it from one place at a time.
package struct WebSocketConnection {
    /// Limits and choices.
    package struct Configuration: Sendable {
        /// The largest message accepted (inflated size for a compressed one): 1009 past it.
        package var maximumMessageSize: Int
        /// The largest data frame accepted: 1009 past it.
        package var maximumFramePayload: Int
        /// Messages longer than this go out in fragments.
        package var maximumOutgoingFramePayload: Int
        /// Where masking keys come from: random from the CSPRNG, except in byte-exact tests.
        package var maskKeys: WebSocketFrameEncoder.MaskKeys

        /// Defaults: 16 MiB messages and frames received, 1 MiB frames sent, random masks.
        package init(
            maximumMessageSize: Int = 16 << 20, maximumFramePayload: Int? = nil,
            maximumOutgoingFramePayload: Int = 1 << 20, maskKeys: WebSocketFrameEncoder.MaskKeys = .random
        ) {
            self.maximumMessageSize = maximumMessageSize
            self.maximumFramePayload = maximumFramePayload ?? maximumMessageSize
            self.maximumOutgoingFramePayload = maximumOutgoingFramePayload
            self.maskKeys = maskKeys
        }
    }

    private enum State {
        case open
        /// Our close frame is out; waiting for the peer's.
        case closeSent
        case finished
    }

    private var state = State.open
    private static let placeholderParser = WebSocketFrameParser(maximumFramePayload: 0)
    private var parser: WebSocketFrameParser
    private var assembler: WebSocketMessageAssembler
    private let encoder: WebSocketFrameEncoder
    private let deflater: PerMessageDeflater?

    /// The subprotocol and compression the handshake agreed to.
    package let agreement: WebSocketHandshake.Agreement

    /// A connection that starts right after the server's 101.
    ///
    /// - Throws: ``WebSocketHandshakeFailure`` when compression was agreed and zlib cannot be loaded.
    package init(
        agreement: WebSocketHandshake.Agreement, configuration: Configuration = Configuration()
    ) throws(WebSocketHandshakeFailure) {
        self.agreement = agreement
        let compression = agreement.compression
        parser = WebSocketFrameParser(
            maximumFramePayload: configuration.maximumFramePayload,
            allowedReservedBits: compression == nil ? 0 : WebSocketFrameHeader.compressedBit)
        assembler = try WebSocketMessageAssembler(
            maximumMessageSize: configuration.maximumMessageSize, compression: compression)
        encoder = WebSocketFrameEncoder(
            maskKeys: configuration.maskKeys, maximumFramePayload: configuration.maximumOutgoingFramePayload)
        if let compression, compression.compressesOutgoing {
            deflater = try PerMessageDeflater(compression)
        } else {
            deflater = nil
        }
    }

    /// Whether messages may still be sent (no close frame sent or received yet).
    package var canSend: Bool { state == .open }

    /// Whether the connection is over.
    package var isFinished: Bool { state == .finished }

    // MARK: Events

    /// Bytes read from the connection.
    package mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [WebSocketAction] {
        guard state != .finished else { return [] }
        var actions: [WebSocketAction] = []
        // The parser is taken out while it calls back into the connection (exclusive access), and
        // a shared placeholder stands in, so its buffers stay uniquely referenced.
        var parser = self.parser
        self.parser = Self.placeholderParser
        defer { self.parser = parser }
        do throws(WebSocketProtocolViolation) {
            try parser.parse(bytes) { (event) throws(WebSocketProtocolViolation) in
                // After the close handshake the rest of the bytes are ignored.
                guard state != .finished, let output = try assembler.handle(event) else { return }
                handle(output, into: &actions)
            }
        } catch {
            if state != .finished { fail(error, into: &actions) }
        }
        return actions
    }

    /// Bytes read from the connection, in an array.
    package mutating func receive(_ bytes: [UInt8]) -> [WebSocketAction] {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// A message to send: nothing once ``canSend`` is false.
    package mutating func send(_ message: WebSocketMessage) -> [WebSocketAction] {
        guard state == .open else { return [] }
        switch message {
        case .text(let text):
            var text = text
            return text.withUTF8 { [write(.text, UnsafeRawBufferPointer($0))] }
        case .binary(let data):
            return data.withUnsafeBytes { [write(.binary, $0)] }
        }
    }

    /// A ping to send (a keepalive's), at most 125 bytes: nothing once ``canSend`` is false.
    ///
    /// - Throws: ``APIError`` (``APIError/Kind/invalidRequest``) for a longer payload.
    package mutating func ping(_ payload: [UInt8] = []) throws(APIError) -> [WebSocketAction] {
        guard payload.count <= WebSocketFrameHeader.maximumControlPayload else {
            throw APIError(.invalidRequest, message: "a WebSocket ping carries at most 125 bytes, not \(payload.count)")
        }
        guard state == .open else { return [] }
        return [.write(encoder.controlFrame(.ping, payload: payload))]
    }

    /// Starts the close handshake: writes a close frame with `code` and `reason` (cut to 123 bytes
    /// of UTF-8 at a code point boundary) and waits `timeout` for the peer's. Nothing once a close
    /// frame was sent or received.
    ///
    /// - Throws: ``APIError`` (``APIError/Kind/invalidRequest``) for a code that may not be sent
    ///   (``WebSocketCloseCode/isAllowedInCloseFrame``).
    package mutating func close(
        code: WebSocketCloseCode = .normalClosure, reason: String = "", timeout: Duration
    ) throws(APIError) -> [WebSocketAction] {
        guard code.isAllowedInCloseFrame else {
            throw APIError(.invalidRequest, message: "a WebSocket close frame cannot carry the code \(code)")
        }
        guard state == .open else { return [] }
        state = .closeSent
        let frame = WebSocketCloseFrame(code: code, reason: reason)
        return [
            .write(encoder.controlFrame(.close, payload: frame.payload)), .startTimer(.closeTimeout, after: timeout),
        ]
    }

    /// A timer asked for by ``WebSocketAction/startTimer(_:after:)`` fired.
    package mutating func timerFired(_ timer: WebSocketTimer) -> [WebSocketAction] {
        guard timer == .closeTimeout, state == .closeSent else { return [] }
        state = .finished
        return [.closeConnection, .finish(.closeTimedOut)]
    }

    /// The connection ended (the peer closed it, or it broke) before ``isFinished``.
    package mutating func connectionEnded() -> [WebSocketAction] {
        guard state != .finished else { return [] }
        let wasWaiting = state == .closeSent
        state = .finished
        return (wasWaiting ? [.cancelTimer(.closeTimeout)] : []) + [.finish(.connectionLost)]
    }

    // MARK: Reactions

    private mutating func handle(_ output: WebSocketMessageAssembler.Output, into actions: inout [WebSocketAction]) {
        switch output {
        case .message(let message):
            actions.append(.deliver(message))
        case .ping(let payload):
            if state == .open { actions.append(.write(encoder.controlFrame(.pong, payload: payload))) }
        case .pong(let payload):
            actions.append(.receivedPong(payload))
        case .close(let frame):
            if state == .open {
                // Echo the code (RFC 6455 §5.5.1); a close without a code is answered without one.
                let echo = WebSocketCloseFrame(code: frame.code)
                actions.append(.write(encoder.controlFrame(.close, payload: echo.payload)))
                actions += [.closeConnection, .finish(.closed(frame, initiatedByPeer: true))]
            } else {
                actions += [
                    .cancelTimer(.closeTimeout), .closeConnection, .finish(.closed(frame, initiatedByPeer: false)),
                ]
            }
            state = .finished
        }
    }

    private mutating func fail(_ violation: WebSocketProtocolViolation, into actions: inout [WebSocketAction]) {
        if state == .open {
            let frame = WebSocketCloseFrame(code: violation.closeCode, reason: violation.reason)
            actions.append(.write(encoder.controlFrame(.close, payload: frame.payload)))
        } else {
            actions.append(.cancelTimer(.closeTimeout))
        }
        actions += [.closeConnection, .finish(.failed(violation))]
        state = .finished
    }

    private func write(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) -> WebSocketAction {
        if let deflater {
            let compressed = deflater.deflate(payload)
            return compressed.withUnsafeBytes { .write(encoder.messageFrames(opcode, payload: $0, isCompressed: true)) }
        }
        return .write(encoder.messageFrames(opcode, payload: payload))
    }
}
