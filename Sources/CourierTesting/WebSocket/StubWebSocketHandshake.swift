import Courier
import Foundation

/// How ``StubTransport`` answers a WebSocket's opening handshake: accept it (`101`, with a
/// subprotocol or not), accept it with a wrong `Sec-WebSocket-Accept` (the client must refuse it),
/// or answer with any other response (a `401` before a token refresh, a `404`).
///
/// ```swift
/// StubTransport().onWebSocket("chat", answering: [.refuse(.status(.unauthorized)), .accept]) { peer in … }
/// ```
public struct StubWebSocketHandshake: Sendable {
    enum Answer: Sendable {
        case accept(subprotocol: String?, isAcceptKeyWrong: Bool)
        case refuse(StubResponse)
    }

    let answer: Answer

    /// `101 Switching Protocols` with a correct `Sec-WebSocket-Accept`, no subprotocol and no
    /// compression.
    public static let accept = StubWebSocketHandshake(answer: .accept(subprotocol: nil, isAcceptKeyWrong: false))

    /// `101 Switching Protocols` choosing `subprotocol` (`nil` for none), whether the client
    /// offered it or not.
    public static func accept(subprotocol: String?) -> StubWebSocketHandshake {
        StubWebSocketHandshake(answer: .accept(subprotocol: subprotocol, isAcceptKeyWrong: false))
    }

    /// `101 Switching Protocols` with a `Sec-WebSocket-Accept` that does not match the key: a
    /// client must fail the handshake.
    public static let wrongAcceptKey = StubWebSocketHandshake(answer: .accept(subprotocol: nil, isAcceptKeyWrong: true))

    /// Any answer but a `101`: `response`'s status, headers and body (or its failure).
    public static func refuse(_ response: StubResponse) -> StubWebSocketHandshake {
        StubWebSocketHandshake(answer: .refuse(response))
    }
}
