/// permessage-deflate (RFC 7692 §7): what the client offers and what it accepts back.
///
/// The offer names the extension with the parameters the client asks for:
/// `server_no_context_takeover` (the server starts each message with an empty window),
/// `client_no_context_takeover` (the client will: a promise kept whatever the server answers),
/// `server_max_window_bits=N` (the server's window at most 2^N bytes), and `client_max_window_bits`
/// (the client accepts a limit on its own window; with a value, at most that).
///
/// The server's answer fails the handshake when: it names permessage-deflate more than once; a
/// parameter is unknown or repeated; `server_no_context_takeover` or `client_no_context_takeover`
/// has a value; a window size is not a decimal 8–15 without leading zeros; `server_max_window_bits`
/// is larger than the offer's; `client_max_window_bits` comes without a value, without the offer
/// having it, or larger than the offer's value (§7.1.2). The server may add
/// `server_no_context_takeover` and `server_max_window_bits` unasked (§7.1.1.1, §7.1.2.1).
package enum PerMessageDeflate {
    /// The extension's name.
    package static let name = "permessage-deflate"

    /// What the client asks for.
    package struct Offer: Hashable, Sendable {
        package var requestsServerNoContextTakeover: Bool
        package var promisesClientNoContextTakeover: Bool
        /// The largest server window asked for (8–15), `nil` to leave it to the server.
        package var serverMaxWindowBits: Int?
        /// Whether the offer says the client accepts a limit on its window (`client_max_window_bits`).
        package var acceptsClientMaxWindowBits: Bool
        /// The largest client window the client will use (8–15), sent as the parameter's value.
        package var clientMaxWindowBits: Int?

        package init(
            requestsServerNoContextTakeover: Bool = false, promisesClientNoContextTakeover: Bool = false,
            serverMaxWindowBits: Int? = nil, acceptsClientMaxWindowBits: Bool = true, clientMaxWindowBits: Int? = nil
        ) {
            self.requestsServerNoContextTakeover = requestsServerNoContextTakeover
            self.promisesClientNoContextTakeover = promisesClientNoContextTakeover
            self.serverMaxWindowBits = serverMaxWindowBits.map { min(15, max(8, $0)) }
            self.acceptsClientMaxWindowBits = acceptsClientMaxWindowBits || clientMaxWindowBits != nil
            self.clientMaxWindowBits = clientMaxWindowBits.map { min(15, max(8, $0)) }
        }

        /// The offer as an element of `Sec-WebSocket-Extensions`.
        package var headerValue: String {
            var parts = [PerMessageDeflate.name]
            if requestsServerNoContextTakeover { parts.append("server_no_context_takeover") }
            if promisesClientNoContextTakeover { parts.append("client_no_context_takeover") }
            if let serverMaxWindowBits { parts.append("server_max_window_bits=\(serverMaxWindowBits)") }
            if let clientMaxWindowBits {
                parts.append("client_max_window_bits=\(clientMaxWindowBits)")
            } else if acceptsClientMaxWindowBits {
                parts.append("client_max_window_bits")
            }
            return parts.joined(separator: "; ")
        }

        /// What the server's answer (its permessage-deflate element) agrees to.
        ///
        /// - Throws: a reason, for an answer the type's summary refuses.
        package func accept(_ parameters: [(name: String, value: String?)]) throws(WebSocketHandshakeFailure)
            -> Parameters
        {
            var agreed = Parameters(
                serverNoContextTakeover: false, clientNoContextTakeover: promisesClientNoContextTakeover,
                serverMaxWindowBits: 15, clientMaxWindowBits: clientMaxWindowBits ?? 15)
            var seen: Set<String> = []
            for (name, value) in parameters {
                guard seen.insert(name).inserted else { throw refused("repeats \(name)") }
                switch name {
                case "server_no_context_takeover":
                    guard value == nil else { throw refused("gives server_no_context_takeover a value") }
                    agreed.serverNoContextTakeover = true
                case "client_no_context_takeover":
                    guard value == nil else { throw refused("gives client_no_context_takeover a value") }
                    agreed.clientNoContextTakeover = true
                case "server_max_window_bits":
                    guard let bits = Self.windowBits(value) else {
                        throw refused("has server_max_window_bits=\(value ?? "") (not 8–15)")
                    }
                    if let asked = serverMaxWindowBits, bits > asked {
                        throw refused("raises server_max_window_bits to \(bits) over the \(asked) asked")
                    }
                    agreed.serverMaxWindowBits = bits
                case "client_max_window_bits":
                    guard acceptsClientMaxWindowBits else { throw refused("sets client_max_window_bits, not offered") }
                    guard let bits = Self.windowBits(value) else {
                        throw refused("has client_max_window_bits=\(value ?? "(no value)") (not 8–15)")
                    }
                    if let offered = clientMaxWindowBits, bits > offered {
                        throw refused("raises client_max_window_bits to \(bits) over the \(offered) offered")
                    }
                    agreed.clientMaxWindowBits = bits
                default:
                    throw refused("has the unknown parameter \(name)")
                }
            }
            return agreed
        }

        private func refused(_ why: String) -> WebSocketHandshakeFailure {
            WebSocketHandshakeFailure("the server's permessage-deflate \(why)")
        }

        /// A window size: a decimal 8–15, no leading zero, no sign.
        private static func windowBits(_ value: String?) -> Int? {
            guard let value, value.utf8.count <= 2, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                !value.hasPrefix("0"), let bits = Int(value), (8...15).contains(bits)
            else { return nil }
            return bits
        }
    }

    /// What both sides agreed to.
    package struct Parameters: Hashable, Sendable {
        /// The server starts every message with an empty window: the inflater resets after each.
        package var serverNoContextTakeover: Bool
        /// The client starts every message with an empty window: the deflater resets after each.
        package var clientNoContextTakeover: Bool
        /// The server's window is at most 2^N bytes.
        package var serverMaxWindowBits: Int
        /// The client's window must be at most 2^N bytes.
        package var clientMaxWindowBits: Int

        package init(
            serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
            serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15
        ) {
            self.serverNoContextTakeover = serverNoContextTakeover
            self.clientNoContextTakeover = clientNoContextTakeover
            self.serverMaxWindowBits = serverMaxWindowBits
            self.clientMaxWindowBits = clientMaxWindowBits
        }

        /// Whether the client may compress what it sends: zlib cannot make a raw deflate stream with
        /// a 256-byte window (it refuses window bits 8), so with `client_max_window_bits=8` Courier
        /// sends every message uncompressed, which permessage-deflate allows (RSV1 is per message).
        package var compressesOutgoing: Bool { clientMaxWindowBits >= 9 }
    }
}
