import Foundation

/// One WebSocket message, whole: its fragments joined and, when it was compressed, inflated.
public enum WebSocketMessage: Hashable, Sendable {
    /// A text message (valid UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary(Data)
}
