/// What a close frame says (RFC 6455 §5.5.1, §7.4): nothing at all, or a two-byte status code in
/// network byte order followed by a reason in UTF-8. The rules for a peer's frame: a payload of one
/// byte fails with 1002; a code that may not travel in a frame (see
/// ``WebSocketCloseCode/isAllowedInCloseFrame``) fails with 1002; a reason that is not UTF-8 fails
/// with 1007. A control frame carries at most 125 bytes, so a reason at most 123.
package struct WebSocketCloseFrame: Hashable, Sendable {
    /// The status code; `nil` for a frame without one (reported as 1005, "no status received").
    package var code: WebSocketCloseCode?
    /// The reason, possibly empty.
    package var reason: String

    /// The longest reason, in UTF-8 bytes.
    package static let maximumReasonLength = 123

    package init(code: WebSocketCloseCode?, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Reads a peer's close payload.
    ///
    /// - Throws: ``WebSocketProtocolViolation`` for a payload that breaks a rule above.
    package init(parsing payload: [UInt8]) throws(WebSocketProtocolViolation) {
        guard !payload.isEmpty else {
            self.init(code: nil)
            return
        }
        guard payload.count >= 2 else { throw .protocolError("close frame with a one-byte payload") }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isAllowedInCloseFrame else { throw .protocolError("close code \(code.rawValue) not allowed") }
        let reasonBytes = Array(payload[2...])
        var validator = UTF8Validator()
        guard validator.validate(reasonBytes), validator.isComplete else {
            throw .invalidPayload("close reason not valid UTF-8")
        }
        self.init(code: code, reason: String(decoding: reasonBytes, as: UTF8.self))
    }

    /// The payload to send: the code and the reason, cut to ``maximumReasonLength`` bytes at a
    /// code point boundary. Empty for a frame without a code (a reason needs a code).
    package var payload: [UInt8] {
        guard let code else { return [] }
        var bytes = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > Self.maximumReasonLength {
            var end = Self.maximumReasonLength
            // Back off continuation bytes (10xxxxxx) to the start of the cut code point.
            while end > 0 && reasonBytes[end] & 0xC0 == 0x80 { end -= 1 }
            reasonBytes.removeSubrange(end...)
        }
        bytes += reasonBytes
        return bytes
    }
}
