import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StubTransport: WebSocketOpeningTransport {
    /// Answers WebSocket handshakes to `path` with `handshakes` in turn (repeating the last), and
    /// runs `conversation` as the server's side of each socket it accepts.
    ///
    /// ```swift
    /// let stub = StubTransport().onWebSocket("chat") { peer in
    ///     for try await message in peer.messages { try await peer.send(message) }
    /// }
    /// let socket = try await APIClient(baseURL: url, transport: stub).webSocket(.socket("chat"))
    /// ```
    ///
    /// The socket is real on the client's side: its bytes go through Courier's WebSocket engine
    /// (framing, masking, UTF-8 checks, close rules) over an in-memory connection with flow
    /// control, to a ``StubWebSocketPeer``. The path is compared as in ``on(_:_:_:)``. A handshake
    /// to a path with no WebSocket rule is answered by the HTTP rules, which cannot upgrade it.
    @discardableResult
    public func onWebSocket(
        _ path: String, answering handshakes: [StubWebSocketHandshake] = [.accept],
        conversation: @escaping @Sendable (StubWebSocketPeer) async throws -> Void
    ) -> StubTransport {
        precondition(!handshakes.isEmpty, "StubTransport.onWebSocket needs at least one handshake answer")
        let wanted = path.hasPrefix("/") || path == "*" ? path : "/" + path
        sockets.add(StubSocketRule(path: wanted, handshakes: handshakes, conversation: conversation))
        return self
    }

    /// The peers of the sockets accepted so far, in order.
    public var webSocketPeers: [StubWebSocketPeer] { sockets.peers }

    /// Answers a handshake from the first WebSocket rule for its path.
    package func openWebSocket(_ request: HTTPRequest) async throws
        -> (response: HTTPResponse, channel: (any WebSocketChannel)?)
    {
        let path = Self.encodedPath(of: request)
        guard let (rule, handshake) = sockets.take(for: path) else {
            return (try await send(request), nil)
        }
        record(request)
        switch handshake.answer {
        case .refuse(let stub):
            if let delay = stub.delay { try await Task.sleep(for: delay) }
            switch stub.outcome {
            case .failure(let error): throw error
            case .response(let status, let headers, let body):
                return (HTTPResponse(status: status, headers: headers, body: try body(), url: request.url), nil)
            }
        case .accept(let subprotocol, let isAcceptKeyWrong):
            let key = request.headers["Sec-WebSocket-Key"] ?? ""
            var headers: HTTPHeaders = [
                "Upgrade": "websocket", "Connection": "Upgrade",
                "Sec-WebSocket-Accept": WebSocketHandshake.acceptValue(for: isAcceptKeyWrong ? key + "x" : key),
            ]
            if let subprotocol { headers["Sec-WebSocket-Protocol"] = subprotocol }
            let toServer = StubByteQueue()
            let toClient = StubByteQueue()
            let peer = StubWebSocketPeer(
                request: request, subprotocol: subprotocol, incoming: toServer, outgoing: toClient)
            sockets.opened(peer)
            peer.converse(rule.conversation)
            return (
                HTTPResponse(status: HTTPStatus(code: 101), headers: headers, url: request.url),
                StubWebSocketChannel(incoming: toClient, outgoing: toServer)
            )
        }
    }
}

/// A WebSocket rule of ``StubTransport``.
struct StubSocketRule: Sendable {
    let path: String
    let handshakes: [StubWebSocketHandshake]
    let conversation: @Sendable (StubWebSocketPeer) async throws -> Void
}

/// ``StubTransport``'s WebSocket rules, the answers they gave, and the peers they opened.
final class StubSocketRules: Sendable {
    private struct State: Sendable {
        var rules: [StubSocketRule] = []
        var answered: [Int] = []
        var peers: [StubWebSocketPeer] = []
    }

    private let state = Locked(State())

    func add(_ rule: StubSocketRule) {
        state.withLock { state in
            state.rules.append(rule)
            state.answered.append(0)
        }
    }

    /// The first rule for `path` and its next answer.
    func take(for path: String) -> (StubSocketRule, StubWebSocketHandshake)? {
        state.withLock { state in
            guard let index = state.rules.firstIndex(where: { $0.path == "*" || $0.path == path }) else { return nil }
            let rule = state.rules[index]
            let answer = rule.handshakes[min(state.answered[index], rule.handshakes.count - 1)]
            state.answered[index] += 1
            return (rule, answer)
        }
    }

    func opened(_ peer: StubWebSocketPeer) {
        state.withLock { $0.peers.append(peer) }
    }

    var peers: [StubWebSocketPeer] { state.withLock { $0.peers } }
}
