/// The status code of a WebSocket close frame (RFC 6455 §7.4): why an endpoint closed.
///
/// A close frame may carry 1000–1003, 1007–1014 (the codes RFC 6455 defines and those IANA
/// registered after it: 1012 service restart, 1013 try again later, 1014 bad gateway), 3000–3999
/// (registered by libraries and frameworks) and 4000–4999 (private use). 1004 is reserved, and
/// 1005, 1006 and 1015 name what happened locally (no code, no close frame, a failed TLS handshake):
/// they never travel in a frame. A peer's frame with any other code fails the connection with 1002.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number on the wire.
    public let rawValue: UInt16

    /// A code by its number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// A code by its number.
    public init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The number, and the name of a predefined code.
    public var description: String {
        let names: [UInt16: String] = [
            1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
            1005: "no status received", 1006: "abnormal closure", 1007: "invalid payload data",
            1008: "policy violation", 1009: "message too big", 1010: "mandatory extension",
            1011: "internal error", 1012: "service restart", 1013: "try again later", 1014: "bad gateway",
            1015: "TLS handshake",
        ]
        return names[rawValue].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }

    /// Whether the code may travel in a close frame (RFC 6455 §7.4.1, §7.4.2 and the IANA registry;
    /// see the type's summary).
    public var isAllowedInCloseFrame: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the endpoint is going away (a server shutting down, a page navigated away).
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the protocol (a masked server frame, a reserved bit, a bad length…).
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: a message of a type the endpoint cannot accept (text where only binary is understood).
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: the close frame carried no code. Never sent: reported when a peer's frame had none.
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1006: the connection ended without a close frame. Never sent: reported locally.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: a message's data did not match its type (text that is not UTF-8, compressed data that
    /// does not inflate).
    public static let invalidPayloadData = WebSocketCloseCode(1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a frame or message was larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1010: the client needed an extension the server did not agree to.
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    /// 1011: the server met an unexpected condition.
    public static let internalError = WebSocketCloseCode(1011)
    /// 1012: the server is restarting (IANA registry).
    public static let serviceRestart = WebSocketCloseCode(1012)
    /// 1013: the server is overloaded; try again later (IANA registry).
    public static let tryAgainLater = WebSocketCloseCode(1013)
    /// 1014: a gateway got an invalid response from the server upstream (IANA registry).
    public static let badGateway = WebSocketCloseCode(1014)
}
