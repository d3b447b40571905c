import Courier
import CourierTesting
import Foundation
import Testing

@Suite("WebSocket: the handshake through the middleware chain")
struct WebSocketHandshakeChainTests {
    @Test("a 401 handshake is refreshed by the auth middleware and sent again, then upgraded")
    func authRefresh() async throws {
        let refreshes = Counter()
        let tokens = ClosureCredentialProvider(
            credential: { .bearer("old") },
            refresh: { _ in
                refreshes.increment()
                return .bearer("new")
            })
        let (client, stub) = socketClient(
            answering: [.refuse(.status(.unauthorized)), .accept], middlewares: [AuthMiddleware(provider: tokens)],
            conversation: echo)
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        #expect(refreshes.count == 1)
        #expect(stub.requests.map { $0.headers[.authorization] } == ["Bearer old", "Bearer new"])
        #expect(socket.request.headers[.authorization] == "Bearer new")
        try await socket.send(text: "ping")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("ping"))
    }

    @Test("a handshake still refused after the refresh is unacceptableStatus with the server's error body")
    func refusedWithErrorBody() async throws {
        let (client, _) = socketClient(
            answering: [.refuse(.json(#"{"message": "token revoked"}"#, status: .unauthorized))],
            conversation: echo)
        let error = await #expect(throws: APIError.self) {
            try await client.webSocket(.socket("chat"), options: patient)
        }
        #expect(error?.kind == .unacceptableStatus(.unauthorized))
        #expect(error?.serverMessage == "token revoked")
    }

    @Test("cookies from the jar go on the handshake")
    func cookies() async throws {
        let jar = CookieJar()
        jar.store(setCookie: "session=abc; Path=/", from: baseURL)
        let (client, stub) = socketClient(middlewares: [CookieMiddleware(jar: jar)], conversation: echo)
        _ = try await client.webSocket(.socket("chat"), options: patient)
        #expect(stub.requests.first?.headers[.cookie] == "session=abc")
    }

    @Test("the logging middleware logs the handshake with its Authorization redacted")
    func loggingRedacts() async throws {
        let log = CapturingLogHandler()
        let (client, _) = socketClient(
            middlewares: [LoggingMiddleware(sink: log), AuthMiddleware(credential: .bearer("sentinel-secret-7731"))],
            conversation: echo)
        _ = try await client.webSocket(.socket("chat"), options: patient)
        #expect(log.lines.contains { $0.contains("/v1/chat") })
        #expect(!log.lines.joined().contains("sentinel-secret-7731"))
    }

    @Test("the subprotocol the server chose is on the socket; one not offered fails the handshake")
    func subprotocols() async throws {
        let (client, _) = socketClient(answering: [.accept(subprotocol: "chat.v2")], conversation: echo)
        let socket = try await client.webSocket(.socket("chat", subprotocols: ["chat.v3", "chat.v2"]))
        #expect(socket.subprotocol == "chat.v2")
        #expect(!socket.isCompressed)
        let (other, _) = socketClient(answering: [.accept(subprotocol: "chat.v9")], conversation: echo)
        let error = await #expect(throws: APIError.self) {
            try await other.webSocket(.socket("chat", subprotocols: ["chat.v2"]))
        }
        #expect(error?.kind == .transport(.webSocketHandshakeFailed))
        #expect(error?.message.contains("chat.v9") == true)
    }

    @Test("a wrong Sec-WebSocket-Accept fails the handshake and closes the connection")
    func wrongAcceptKey() async throws {
        let (client, stub) = socketClient(answering: [.wrongAcceptKey]) { peer in
            for try await _ in peer.messages {}
        }
        let error = await #expect(throws: APIError.self) {
            try await client.webSocket(.socket("chat"), options: patient)
        }
        #expect(error?.kind == .transport(.webSocketHandshakeFailed))
        #expect(error?.message.contains("Sec-WebSocket-Accept") == true)
        // The peer sees the connection end without a close frame.
        let peer = try #require(stub.webSocketPeers.first)
        await #expect(throws: (any Error).self) { for try await _ in peer.messages {} }
    }

    @Test("a subprotocol that is not a token is invalidRequest before anything is sent")
    func invalidSubprotocol() async throws {
        let (client, stub) = socketClient(conversation: echo)
        let error = await #expect(throws: APIError.self) {
            try await client.webSocket(.socket("chat", subprotocols: ["two words"]))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(stub.requests.isEmpty)
    }

    @Test("a transport that cannot open WebSockets fails with unsupported")
    func unsupportedTransport() async throws {
        struct PlainTransport: HTTPTransport {
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                HTTPResponse(status: .ok, headers: [:], body: Data(), url: request.url)
            }
        }
        let client = APIClient(baseURL: baseURL, transport: PlainTransport())
        let error = await #expect(throws: APIError.self) {
            try await client.webSocket(.socket("chat"), options: patient)
        }
        #expect(error?.kind == .transport(.unsupported))
    }

    @Test("an open socket holds no admission slot: a client limited to one call still sends")
    func admissionOnlyForTheHandshake() async throws {
        let stub = StubTransport().onWebSocket("v1/chat", conversation: echo).on(.get, "v1/me", .json("{}"))
        let client = APIClient(baseURL: baseURL, transport: stub, maximumConcurrentRequests: 1)
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        _ = try await client.send(.get("me", as: Data.self))
        #expect(client.admission?.counts.holders == 0)
        _ = socket
    }
}
