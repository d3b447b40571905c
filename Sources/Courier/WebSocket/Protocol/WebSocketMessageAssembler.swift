import Foundation

/// Joins frames into messages (RFC 6455 §5.4, §5.6; RFC 7692 §6), fed by a
/// ``WebSocketFrameParser``'s events. The message rules, each failing the connection:
/// - a continuation frame with no message open, or a text or binary frame while one is: 1002;
/// - a message over ``maximumMessageSize`` bytes: 1009, decided from each frame's header before
///   its payload is read (for a compressed message, as it inflates, in bounded steps);
/// - text that is not UTF-8: 1007 at the first byte that proves it (a code point split between
///   fragments is fine), or at the end for a code point left unfinished;
/// - compressed data that does not inflate: 1007.
/// Control frames may come between the fragments of a message; they come out as they end. A close
/// frame's payload is checked by ``WebSocketCloseFrame``.
///
/// Not `Sendable` (its inflater is a zlib stream): one connection owns it.
package struct WebSocketMessageAssembler {
    /// What a frame completed.
    package enum Output: Equatable {
        case message(WebSocketMessage)
        case ping([UInt8])
        case pong([UInt8])
        case close(WebSocketCloseFrame)
    }

    /// The most bytes of one message (inflated, when it is compressed).
    package let maximumMessageSize: Int

    private let inflater: PerMessageInflater?
    /// The open message's opcode (text or binary), `nil` between messages.
    private var messageOpcode: WebSocketOpcode?
    private var isCompressed = false
    private var message: [UInt8] = []
    private var validator = UTF8Validator()
    /// The current frame, and a control frame's payload.
    private var frame: WebSocketFrameHeader?
    private var control: [UInt8] = []

    /// An assembler; `compression` is the permessage-deflate agreement, `nil` for none.
    ///
    /// - Throws: ``WebSocketHandshakeFailure`` when compression was agreed and zlib cannot be loaded.
    package init(maximumMessageSize: Int, compression: PerMessageDeflate.Parameters?) throws(WebSocketHandshakeFailure)
    {
        self.maximumMessageSize = max(0, maximumMessageSize)
        inflater = try compression.map { (parameters) throws(WebSocketHandshakeFailure) in
            try PerMessageInflater(parameters)
        }
    }

    /// Whether a fragmented message is open.
    package var isInsideMessage: Bool { messageOpcode != nil }

    /// Takes the parser's next event; returns what it completed.
    ///
    /// - Throws: ``WebSocketProtocolViolation`` for a rule broken.
    package mutating func handle(_ event: WebSocketFrameParser.Event) throws(WebSocketProtocolViolation) -> Output? {
        switch event {
        case .header(let header):
            try start(header)
            return nil
        case .payload(let bytes):
            try append(bytes)
            return nil
        case .end:
            return try end()
        }
    }

    private mutating func start(_ header: WebSocketFrameHeader) throws(WebSocketProtocolViolation) {
        frame = header
        if header.opcode.isControl {
            control.removeAll(keepingCapacity: true)
            return
        }
        if header.opcode == .continuation {
            guard messageOpcode != nil else { throw .protocolError("continuation frame with no message open") }
        } else {
            guard messageOpcode == nil else {
                throw .protocolError("new \(header.opcode) message before the last one's final fragment")
            }
            messageOpcode = header.opcode
            isCompressed = header.isCompressed
            if isCompressed && inflater == nil { throw .protocolError("compressed message without permessage-deflate") }
            message.removeAll(keepingCapacity: message.capacity <= 1 << 20)
            validator.reset()
        }
        if !isCompressed && header.payloadLength > maximumMessageSize - message.count {
            throw .tooBig("message over the limit of \(maximumMessageSize) bytes")
        }
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolViolation) {
        guard let frame else { return }
        if frame.opcode.isControl {
            control.append(contentsOf: bytes)
        } else if isCompressed, let inflater {
            var produced = message.count
            try inflater.inflate(bytes, produced: &produced, limit: maximumMessageSize) {
                (piece) throws(WebSocketProtocolViolation) in try take(piece)
            }
        } else {
            try take(bytes)
        }
    }

    /// Message bytes (inflated, for a compressed message): checked as text, then kept.
    private mutating func take(_ bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolViolation) {
        if messageOpcode == .text && !validator.validate(bytes) { throw .invalidPayload("text not valid UTF-8") }
        message.append(contentsOf: bytes)
    }

    private mutating func end() throws(WebSocketProtocolViolation) -> Output? {
        guard let ended = frame else { return nil }
        frame = nil
        switch ended.opcode {
        case .ping: return .ping(control)
        case .pong: return .pong(control)
        case .close: return .close(try WebSocketCloseFrame(parsing: control))
        default: break
        }
        guard ended.isFinal, let opcode = messageOpcode else { return nil }
        if isCompressed, let inflater {
            var produced = message.count
            try inflater.finishMessage(produced: &produced, limit: maximumMessageSize) {
                (piece) throws(WebSocketProtocolViolation) in try take(piece)
            }
        }
        messageOpcode = nil
        if opcode == .text {
            guard validator.isComplete else { throw .invalidPayload("text ends inside a UTF-8 sequence") }
            return .message(.text(String(decoding: message, as: UTF8.self)))
        }
        return .message(.binary(Data(message)))
    }
}
