import Courier
import CourierTesting
import Foundation
import Testing

/// A client over a stub whose socket `chat` runs `conversation`.
func socketClient(
    answering handshakes: [StubWebSocketHandshake] = [.accept], middlewares: [any Middleware] = [],
    conversation: @escaping @Sendable (StubWebSocketPeer) async throws -> Void
) -> (APIClient, StubTransport) {
    let stub = StubTransport().onWebSocket("v1/chat", answering: handshakes, conversation: conversation)
    return (APIClient(baseURL: baseURL, transport: stub, middlewares: middlewares), stub)
}

/// Echoes every message until the client closes.
@Sendable func echo(_ peer: StubWebSocketPeer) async throws {
    for try await message in peer.messages { try await peer.send(message) }
}

struct Quote: Codable, Equatable, Sendable {
    var symbol: String
    var price: Double
}

@Suite("WebSocket: messages, ping and close over the stub")
struct WebSocketClientTests {
    @Test("text, binary and JSON messages echo through the real engine")
    func echoes() async throws {
        let (client, stub) = socketClient(conversation: echo)
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        #expect(socket.response.status.code == 101)
        #expect(stub.requests.first?.headers["Sec-WebSocket-Version"] == "13")
        #expect(stub.requests.first?.url.absoluteString == "https://api.example.com/v1/chat")
        try await socket.send(text: "héllo")
        try await socket.send(Data([0, 1, 2, 255]))
        try await socket.send(json: Quote(symbol: "ACME", price: 12.5))
        var received: [WebSocketMessage] = []
        for try await message in socket.messages {
            received.append(message)
            if received.count == 3 { break }
        }
        #expect(received[0] == .text("héllo"))
        #expect(received[1] == .binary(Data([0, 1, 2, 255])))
        guard case .text(let json) = received[2] else {
            Issue.record("JSON not sent as text")
            return
        }
        #expect(try JSONDecoder().decode(Quote.self, from: Data(json.utf8)) == Quote(symbol: "ACME", price: 12.5))
    }

    @Test("messages(as:) decodes text and binary JSON with the client's decoder")
    func typedMessages() async throws {
        let (client, _) = socketClient { peer in
            try await peer.send(text: #"{"symbol":"A","price":1}"#)
            try await peer.send(.binary(Data(#"{"symbol":"B","price":2}"#.utf8)))
            try await peer.close()
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        var quotes: [Quote] = []
        for try await quote in socket.messages(as: Quote.self) { quotes.append(quote) }
        #expect(quotes == [Quote(symbol: "A", price: 1), Quote(symbol: "B", price: 2)])
        #expect(socket.closure == WebSocketClose(code: .normalClosure))
    }

    @Test("a message that does not decode is a decoding error naming the message")
    func typedDecodingFailure() async throws {
        let (client, _) = socketClient { peer in
            try await peer.send(text: #"{"symbol":"A","price":1}"#)
            try await peer.send(text: #"{"symbol":"B"}"#)
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        var quotes: [Quote] = []
        let error = await #expect(throws: APIError.self) {
            for try await quote in socket.messages(as: Quote.self) { quotes.append(quote) }
        }
        #expect(quotes.count == 1)
        #expect(error?.kind == .decoding)
        #expect(error?.message.contains("WebSocket message #2") == true)
        #expect(error?.message.contains("price") == true)
    }

    @Test("ping waits for the peer's pong")
    func ping() async throws {
        let (client, stub) = socketClient(conversation: echo)
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        let reader = Task { for try await _ in socket.messages {} }
        let roundTrip = try await socket.ping()
        #expect(roundTrip >= .zero)
        #expect(stub.webSocketPeers.first?.pingsReceived == 1)
        try await socket.close()
        try await reader.value
    }

    @Test("close(code:reason:) completes the handshake: the peer sees the code and reason, the loop ends")
    func clientCloses() async throws {
        let (client, stub) = socketClient(conversation: echo)
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        let reader = Task { for try await _ in socket.messages {} }
        let closure = try await socket.close(code: WebSocketCloseCode(4001), reason: "done here")
        #expect(closure.code == WebSocketCloseCode(4001))  // the peer echoes the code
        try await reader.value
        #expect(
            stub.webSocketPeers.first?.clientClose
                == WebSocketClose(code: WebSocketCloseCode(4001), reason: "done here"))
        let error = await #expect(throws: APIError.self) { try await socket.send(text: "late") }
        #expect(error?.kind == .invalidRequest)
    }

    @Test("the peer's close code and reason (4000) end the loop and are on the socket")
    func peerCloses() async throws {
        let (client, _) = socketClient { peer in
            try await peer.send(text: "last words")
            try await peer.close(code: WebSocketCloseCode(4000), reason: "room closed")
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received == [.text("last words")])
        #expect(socket.closure == WebSocketClose(code: WebSocketCloseCode(4000), reason: "room closed"))
        #expect(try await socket.ended() == WebSocketClose(code: WebSocketCloseCode(4000), reason: "room closed"))
    }

    @Test("a masked server frame fails the socket with webSocketProtocolViolation and 1002")
    func protocolViolation() async throws {
        let (client, stub) = socketClient { peer in
            // A masked text frame: servers must not mask.
            try await peer.send(rawBytes: [0x81, 0x82, 1, 2, 3, 4, 0x69 ^ 1, 0x69 ^ 2])
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        let error = await #expect(throws: APIError.self) {
            for try await _ in socket.messages {}
        }
        #expect(error?.kind == .transport(.webSocketProtocolViolation))
        #expect(error?.message.contains("1002") == true)
        #expect(socket.closure?.code == .protocolError)
        #expect(try await eventually { stub.webSocketPeers.first?.clientClose?.code == .protocolError })
    }

    @Test("a connection that drops without a close frame is connectionLost, 1006")
    func connectionLost() async throws {
        let (client, _) = socketClient { peer in
            try await peer.send(text: "hi")
            peer.disconnect()
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        var received: [WebSocketMessage] = []
        let error = await #expect(throws: APIError.self) {
            for try await message in socket.messages { received.append(message) }
        }
        #expect(received == [.text("hi")])
        #expect(error?.kind == .transport(.connectionLost))
        #expect(socket.closure?.code == .abnormalClosure)
    }

    @Test("a peer that never answers the close: close() throws timedOut after the close timeout")
    func closeTimeout() async throws {
        let gate = Latch()
        let (client, _) = socketClient { _ in try await gate.wait() }
        let stub = client.transport as! StubTransport
        let socket = try await client.webSocket(.socket("chat"), options: .init(closeTimeout: .milliseconds(100)))
        stub.webSocketPeers.first?.answersClose = false
        let error = await #expect(throws: APIError.self) { try await socket.close() }
        gate.open()
        #expect(error?.kind == .transport(.timedOut))
        #expect(stub.webSocketPeers.first?.clientClose == WebSocketClose(code: .normalClosure))
        #expect(socket.closure?.code == .abnormalClosure)
    }
}

/// What `finishing(within:_:)` throws when the work did not finish in time.
struct DidNotFinish: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "did not finish within \(limit)" }
}

/// Runs `body`, throwing `DidNotFinish` (and cancelling it) instead of hanging the test when it has
/// not finished within `limit` (generous: a bound for a broken rule, never a timing assertion).
func finishing<T: Sendable>(
    within limit: Duration = .seconds(45), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DidNotFinish(limit: limit) }
        return value
    }
}
