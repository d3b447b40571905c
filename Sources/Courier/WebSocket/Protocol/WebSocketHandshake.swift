import Foundation

/// The client's side of the opening handshake (RFC 6455 §4.1), without I/O: the headers to add to a
/// `GET`, and the check of the server's answer.
///
/// The request carries `Upgrade: websocket`, `Connection: Upgrade`, `Sec-WebSocket-Version: 13`, a
/// `Sec-WebSocket-Key` (16 bytes from the system's CSPRNG, base64), the subprotocols offered and
/// the permessage-deflate offer. The answer is accepted only when: the status is 101; `Upgrade` is
/// `websocket` (any case); `Connection` has the token `upgrade` (any case); `Sec-WebSocket-Accept`
/// is base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")), once; `Sec-WebSocket-Protocol`,
/// when present, is one value among those offered (exactly); `Sec-WebSocket-Extensions` names only
/// extensions offered, each once, with parameters the offer allows. Anything else fails the
/// connection with a ``WebSocketHandshakeFailure`` that says which rule.
///
/// ```swift
/// let handshake = try WebSocketHandshake(subprotocols: ["chat"], compression: .init())
/// request.headers.append(contentsOf: handshake.requestHeaders)
/// … send, read the head …
/// let agreed = try handshake.accept(status: 101, headers: response.headers)
/// ```
package struct WebSocketHandshake: Sendable {
    /// The `Sec-WebSocket-Key` of this handshake.
    package let key: String
    /// The subprotocols offered, in order of preference.
    package let subprotocols: [String]
    /// The permessage-deflate offer, `nil` for none.
    package let compression: PerMessageDeflate.Offer?

    /// What the server agreed to.
    package struct Agreement: Hashable, Sendable {
        /// The subprotocol the server chose, `nil` for none.
        package var subprotocol: String?
        /// The permessage-deflate parameters, `nil` when messages are not compressed.
        package var compression: PerMessageDeflate.Parameters?
    }

    /// The GUID of RFC 6455 §1.3 that the accept value hashes with the key.
    package static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A handshake with a fresh key.
    ///
    /// - Throws: ``WebSocketHandshakeFailure`` for a subprotocol that is not a token, or offered twice.
    package init(
        subprotocols: [String] = [], compression: PerMessageDeflate.Offer? = nil, key: String = Self.makeKey()
    ) throws(WebSocketHandshakeFailure) {
        for (index, subprotocol) in subprotocols.enumerated() {
            guard WebSocketExtensionHeader.isToken(subprotocol) else {
                throw WebSocketHandshakeFailure("the subprotocol \(subprotocol.debugDescription) is not a token")
            }
            guard !subprotocols[..<index].contains(subprotocol) else {
                throw WebSocketHandshakeFailure("the subprotocol \(subprotocol) is offered twice")
            }
        }
        self.key = key
        self.subprotocols = subprotocols
        self.compression = compression
    }

    /// A `Sec-WebSocket-Key`: 16 random bytes from the system's CSPRNG, in base64 (24 characters).
    package static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server answers `key` with.
    package static func acceptValue(for key: String) -> String {
        Data(SHA1.hash(Array((key + acceptGUID).utf8))).base64EncodedString()
    }

    /// The headers the handshake's `GET` carries (the transport adds `Host`, and any `Origin`,
    /// cookies and credentials come from the request as usual).
    package var requestHeaders: HTTPHeaders {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": key,
        ]
        if !subprotocols.isEmpty { headers["Sec-WebSocket-Protocol"] = subprotocols.joined(separator: ", ") }
        if let compression { headers["Sec-WebSocket-Extensions"] = compression.headerValue }
        return headers
    }

    /// Checks the server's answer.
    ///
    /// - Returns: what the server agreed to.
    /// - Throws: ``WebSocketHandshakeFailure`` for an answer the type's summary refuses.
    package func accept(status: Int, headers: HTTPHeaders) throws(WebSocketHandshakeFailure) -> Agreement {
        guard status == 101 else {
            throw WebSocketHandshakeFailure("the server answered \(status), not 101 Switching Protocols")
        }
        let upgrade = headers.values(for: "Upgrade")
        guard upgrade.count == 1, upgrade[0].trimmingCharacters(in: .whitespaces).lowercased() == "websocket" else {
            throw WebSocketHandshakeFailure("Upgrade is \(Self.quoted(upgrade)), not websocket")
        }
        let connection = headers.values(for: "Connection")
        let tokens = connection.flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard tokens.contains("upgrade") else {
            throw WebSocketHandshakeFailure("Connection is \(Self.quoted(connection)), without upgrade")
        }
        let accept = headers.values(for: "Sec-WebSocket-Accept")
        guard accept.count == 1, accept[0].trimmingCharacters(in: .whitespaces) == Self.acceptValue(for: key) else {
            throw WebSocketHandshakeFailure(
                "Sec-WebSocket-Accept is \(Self.quoted(accept)), not \(Self.acceptValue(for: key))")
        }
        return Agreement(subprotocol: try acceptSubprotocol(headers), compression: try acceptExtensions(headers))
    }

    private func acceptSubprotocol(_ headers: HTTPHeaders) throws(WebSocketHandshakeFailure) -> String? {
        let chosen = headers.values(for: "Sec-WebSocket-Protocol")
        guard !chosen.isEmpty else { return nil }
        let value = chosen[0].trimmingCharacters(in: .whitespaces)
        guard chosen.count == 1, subprotocols.contains(value) else {
            throw WebSocketHandshakeFailure(
                "the server chose the subprotocol \(Self.quoted(chosen)), not one offered "
                    + "(\(subprotocols.isEmpty ? "none" : subprotocols.joined(separator: ", ")))")
        }
        return value
    }

    private func acceptExtensions(_ headers: HTTPHeaders) throws(WebSocketHandshakeFailure)
        -> PerMessageDeflate.Parameters?
    {
        let values = headers.values(for: "Sec-WebSocket-Extensions")
        guard !values.isEmpty else { return nil }
        guard let elements = WebSocketExtensionHeader.parse(values) else {
            throw WebSocketHandshakeFailure("Sec-WebSocket-Extensions is malformed: \(Self.quoted(values))")
        }
        var agreed: PerMessageDeflate.Parameters?
        for element in elements {
            guard element.name.lowercased() == PerMessageDeflate.name, let compression else {
                throw WebSocketHandshakeFailure("the server uses the extension \(element.name), not offered")
            }
            guard agreed == nil else { throw WebSocketHandshakeFailure("the server names permessage-deflate twice") }
            agreed = try compression.accept(element.parameters)
        }
        return agreed
    }

    private static func quoted(_ values: [String]) -> String {
        values.isEmpty ? "missing" : values.map(\.debugDescription).joined(separator: ", ")
    }
}
