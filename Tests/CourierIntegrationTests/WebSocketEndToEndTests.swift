import Courier
import Foundation
import Testing

/// The public WebSocket API end to end on CurlTransport, against real servers on loopback: the
/// `websockets` package's server (`scripts/servers/websocket.py`) for what a conformant peer does,
/// and a raw-socket server (`scripts/servers/wsraw.py`) that breaks one RFC 6455/7692 rule per path.
@Suite(
    "WebSockets end to end on CurlTransport",
    .enabled(
        if: LocalServers.webSocket != nil && LocalServers.rawWebSocket != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(2))
)
struct WebSocketEndToEndTests {
    private struct Note: Codable, Equatable {
        var id: Int
        var text: String
    }

    /// A client whose base URL is the server's, as `http://` (the REST base URL a service shares
    /// with its sockets) or as the server's own `ws://`.
    private func client(
        _ server: URL?, asHTTP: Bool = true, transport: CurlTransport = CurlTransport(),
        middlewares: [any Middleware] = []
    ) throws -> APIClient {
        let server = try #require(server)
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        if asHTTP { components.scheme = components.scheme == "wss" ? "https" : "http" }
        return APIClient(baseURL: try #require(components.url), transport: transport, middlewares: middlewares)
    }

    /// `.socket` for a path with its query written out (`close?code=4000`).
    private func route(_ pathAndQuery: String) throws -> WebSocketRequest {
        let components = try #require(URLComponents(string: "http://x/" + pathAndQuery))
        return .socket(
            Path(stringLiteral: String(components.path.dropFirst())), query: Query(components.queryItems ?? []))
    }

    private func text(_ message: WebSocketMessage?) -> String? {
        if case .text(let text) = message { return text }
        return nil
    }

    // MARK: A conformant peer

    @Test("echo: text, binary and typed JSON, with permessage-deflate and without", arguments: ["echo", "echo-plain"])
    func echo(path: String) async throws {
        let socket = try await client(LocalServers.webSocket).webSocket(.socket(Path(stringLiteral: path)))
        #expect(socket.isCompressed == (path == "echo"))
        #expect(socket.response.status.code == 101)

        try await socket.send(text: "héllo")
        try await socket.send(Data([0, 1, 2, 255]))
        try await socket.send(json: Note(id: 7, text: "seven"))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(text(try await iterator.next()) == "héllo")
        #expect(try await iterator.next() == .binary(Data([0, 1, 2, 255])))
        let echoed = try #require(text(try await iterator.next()))
        #expect(try JSONDecoder().decode(Note.self, from: Data(echoed.utf8)) == Note(id: 7, text: "seven"))

        let closure = try await socket.close(reason: "done")
        #expect(closure.code == .normalClosure)
        #expect(socket.closure?.code == WebSocketCloseCode.normalClosure)
    }

    @Test("a ws:// base URL opens the same socket")
    func wsBaseURL() async throws {
        let socket = try await client(LocalServers.webSocket, asHTTP: false).webSocket(.socket("echo"))
        try await socket.send(text: "over ws://")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(text(try await iterator.next()) == "over ws://")
        try await socket.close()
    }

    @Test("an open socket keeps its transport: dropping the client and transport does not end it")
    func socketOutlivesClient() async throws {
        let socket = try await {
            try await client(LocalServers.webSocket, transport: CurlTransport()).webSocket(.socket("echo"))
        }()
        var iterator = socket.messages.makeAsyncIterator()
        for round in 1...3 {
            try await socket.send(text: "round \(round)")
            #expect(text(try await iterator.next()) == "round \(round)")
        }
        #expect(try await socket.close().code == .normalClosure)
    }

    @Test(
        "senders at once, past the 1 MiB queued: every message arrives once, each sender's in order",
        arguments: ["echo", "echo-plain"])
    func concurrentSenders(path: String) async throws {
        let socket = try await client(LocalServers.webSocket).webSocket(.socket(Path(stringLiteral: path)))
        // Small and 300 KB messages mixed: the large ones fill the queue, so later sends wait.
        let senders = 8
        let perSender = 24
        let reader = Task { () -> [[Int]] in
            var seen = [[Int]](repeating: [], count: senders)
            var iterator = socket.messages.makeAsyncIterator()
            for _ in 0..<(senders * perSender) {
                guard case .binary(let data) = try await iterator.next() else { break }
                seen[Int(data[0])].append(Int(data[1]))
            }
            return seen
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for index in 0..<perSender {
                        var message = Data(count: index % 3 == 0 ? 300_000 : 16)
                        message[0] = UInt8(sender)
                        message[1] = UInt8(index)
                        try await socket.send(message)
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = try await reader.value
        for sender in 0..<senders { #expect(seen[sender] == Array(0..<perSender), "sender \(sender)") }
        try await socket.close()
    }

    @Test("the typed view decodes each message")
    func typedMessages() async throws {
        let socket = try await client(LocalServers.webSocket).webSocket(.socket("echo"))
        for id in 0..<3 { try await socket.send(json: Note(id: id, text: "n\(id)")) }
        var notes: [Note] = []
        for try await note in socket.messages(as: Note.self) {
            notes.append(note)
            if notes.count == 3 { break }
        }
        #expect(notes.map(\.id) == [0, 1, 2])
    }

    @Test(
        "large and fragmented messages arrive whole, compressed or not",
        arguments: [
            "large?size=4194304&type=binary", "fragmented?size=1000000&fragment=4096&type=text&ping=1",
            "fragmented?size=300000&fragment=1000&type=binary",
        ])
    func largeAndFragmented(path: String) async throws {
        let size = try #require(
            URLComponents(string: "http://x/" + path)?.queryItems?.first { $0.name == "size" }?.value.flatMap(Int.init))
        let socket = try await client(LocalServers.webSocket).webSocket(try route(path))
        var iterator = socket.messages.makeAsyncIterator()
        switch try await iterator.next() {
        case .binary(let data): #expect(data.count == size)
        case .text(let text): #expect(text.utf8.count == size)
        case nil: Issue.record("no message")
        }
    }

    @Test("the server picks a subprotocol among those offered")
    func subprotocol() async throws {
        let socket = try await client(LocalServers.webSocket).webSocket(
            .socket("subprotocol", subprotocols: ["superchat", "chat"]))
        #expect(socket.subprotocol == "superchat")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(text(try await iterator.next()) == "superchat")
    }

    @Test("the peer's close code and reason end the messages and stay on the socket")
    func peerClose() async throws {
        let socket = try await client(LocalServers.webSocket).webSocket(
            .socket("close", query: ["code": "4000", "reason": "bye now"]))
        for try await _ in socket.messages {}
        #expect(socket.closure == WebSocketClose(code: WebSocketCloseCode(rawValue: 4000), reason: "bye now"))
        #expect(try await socket.ended().reason == "bye now")
    }

    @Test("the server's pings are answered with pongs while the reader reads")
    func serverPings() async throws {
        let socket = try await client(LocalServers.webSocket).webSocket(.socket("ping", query: ["count": "3"]))
        var iterator = socket.messages.makeAsyncIterator()
        let report = try #require(text(try await iterator.next()))
        #expect(report.contains("ping-1") && report.contains("ping-2") && report.contains("ping-3"), "\(report)")
    }

    @Test("ping() measures a round trip to a real peer")
    func ping() async throws {
        let socket = try await client(LocalServers.webSocket).webSocket(.socket("echo"))
        let reader = Task { for try await _ in socket.messages {} }
        let roundTrip = try await socket.ping()
        #expect(roundTrip > .zero)
        try await socket.close()
        _ = try await reader.value
    }

    // MARK: The handshake through the middlewares

    private final class Tokens: CredentialProvider {
        let refreshes = Locked(0)
        func credential() async throws -> Credential { .bearer("stale") }
        func refresh(rejecting credential: Credential) async throws -> Credential? {
            refreshes.withLock { $0 += 1 }
            return .bearer("good")
        }
    }

    @Test("a 401 handshake is refreshed by the auth middleware and opened again")
    func authRefresh() async throws {
        let tokens = Tokens()
        let client = try client(LocalServers.webSocket, middlewares: [AuthMiddleware(provider: tokens)])
        let socket = try await client.webSocket(.socket("auth"))
        #expect(tokens.refreshes.withLock { $0 } == 1)
        #expect(socket.request.headers[.authorization] == "Bearer good")
        try await socket.close()
    }

    @Test("a refused handshake is an unacceptable status with the server's body")
    func refusedHandshake() async throws {
        let error = await #expect(throws: APIError.self) {
            _ = try await client(LocalServers.webSocket).webSocket(.socket("auth"))
        }
        #expect(error?.kind == .unacceptableStatus(.unauthorized), "\(String(describing: error))")
        #expect(error?.response?.body.isEmpty == false)
    }

    @Test("the 101's cookie is stored and sent on the next handshake")
    func cookies() async throws {
        let jar = CookieJar()
        let client = try client(LocalServers.webSocket, middlewares: [CookieMiddleware(jar: jar)])
        let first = try await client.webSocket(.socket("cookie"))
        try await first.close()
        let second = try await client.webSocket(.socket("cookie"))
        var iterator = second.messages.makeAsyncIterator()
        #expect(text(try await iterator.next())?.contains("ws-session=from-101") == true)
        try await second.close()
    }

    @Test("wss with the test CA; refused without it")
    func secure() async throws {
        let secure = try #require(LocalServers.secureWebSocket)
        let authority = try #require(LocalServers.webSocketAuthority)
        let trusting = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: authority)))
        let socket = try await client(secure, transport: trusting).webSocket(.socket("echo"))
        try await socket.send(text: "over TLS")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(text(try await iterator.next()) == "over TLS")
        try await socket.close()

        let error = await #expect(throws: APIError.self) {
            _ = try await client(secure).webSocket(.socket("echo"))
        }
        #expect(error?.kind == .transport(.tls), "\(String(describing: error))")
    }

    // MARK: Bounds

    @Test("a reader that stops reading stops the socket: the server's sends back up in TCP")
    func flowControl() async throws {
        let key = UUID().uuidString
        let client = try client(LocalServers.webSocket)
        let socket = try await client.webSocket(
            .socket("flood", query: ["key": key, "count": "100000"]),
            options: WebSocketOptions(maximumBufferedMessages: 2, closeTimeout: .seconds(30)))
        var iterator = socket.messages.makeAsyncIterator()
        _ = try await iterator.next()
        try await Task.sleep(for: .seconds(2))
        let stats = try await client.send(.get("flood-stats", query: ["key": key], as: Data.self))
        let sent =
            try #require(
                try JSONSerialization.jsonObject(with: stats) as? [String: Any])["sent"] as? Int
        // 64 KiB messages: what the kernel's buffers hold on both sides plus Courier's few. A socket
        // that kept reading would have taken thousands by now.
        #expect(try #require(sent) < 400, "the server handed \(sent ?? -1) messages to a socket nobody read")
        for _ in 0..<20 { _ = try await iterator.next() }
        // The inbox fills again and the pump waits for room: closing must set it reading (the
        // peer's close frame is behind the flood), not leave it parked until the close timeout.
        try await Task.sleep(for: .seconds(1))
        try await socket.close()
    }

    // MARK: A peer that breaks the rules

    @Test(
        "a peer breaking RFC 6455 fails the socket with the right close code",
        arguments: [
            ("masked-frame", 1002), ("rsv1", 1002), ("unknown-opcode", 1002), ("fragmented-control", 1002),
            ("invalid-utf8-fragments", 1007), ("oversized-header", 1009), ("close-code?code=1005", 1002),
            ("close-code?code=999", 1002),
        ])
    func violations(path: String, code: Int) async throws {
        let socket = try await client(LocalServers.rawWebSocket).webSocket(try route(path))
        let error = await #expect(throws: APIError.self) { for try await _ in socket.messages {} }
        #expect(error?.kind == .transport(.webSocketProtocolViolation), "\(String(describing: error))")
        #expect(socket.closure?.code.rawValue == UInt16(code), "\(String(describing: socket.closure))")
    }

    @Test("a deflate bomb fails with 1009")
    func deflateBomb() async throws {
        let socket = try await client(LocalServers.rawWebSocket).webSocket(
            .socket("deflate-bomb"), options: WebSocketOptions(maximumMessageSize: 1 << 20))
        #expect(socket.isCompressed)
        let error = await #expect(throws: APIError.self) { for try await _ in socket.messages {} }
        #expect(error?.kind == .transport(.webSocketProtocolViolation), "\(String(describing: error))")
        #expect(socket.closure?.code == WebSocketCloseCode.messageTooBig)
        // Its memory is measured in WebSocketMemoryTests, in the pass that runs alone.
    }

    @Test(
        "a handshake RFC 6455 refuses fails the socket",
        arguments: ["bad-accept", "missing-upgrade", "unasked-subprotocol", "unasked-extension", "status-200"])
    func badHandshakes(path: String) async throws {
        let error = await #expect(throws: APIError.self) {
            _ = try await client(LocalServers.rawWebSocket).webSocket(.socket(Path(stringLiteral: path)))
        }
        let kind = try #require(error?.kind)
        #expect(
            kind == APIError.Kind.transport(.webSocketHandshakeFailed) || kind == APIError.Kind.unacceptableStatus(.ok),
            "\(String(describing: error))")
    }

    @Test("the first frame sent in the 101's packet is delivered")
    func frameWithHead() async throws {
        let socket = try await client(LocalServers.rawWebSocket).webSocket(.socket("frame-with-101"))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() != nil)
    }

    @Test("a peer that never answers our close: close() gives up after the close timeout")
    func closeTimeout() async throws {
        let socket = try await client(LocalServers.rawWebSocket).webSocket(
            .socket("no-close-reply"), options: WebSocketOptions(closeTimeout: .milliseconds(500)))
        let error = await #expect(throws: APIError.self) { try await socket.close() }
        #expect(error?.kind == .transport(.timedOut), "\(String(describing: error))")
    }

    @Test("keepalive: a peer that stops answering pings is detected")
    func keepalive() async throws {
        let socket = try await client(LocalServers.rawWebSocket).webSocket(
            .socket("no-close-reply"),
            options: WebSocketOptions(pingInterval: .milliseconds(300), pongTimeout: .milliseconds(500)))
        let error = await #expect(throws: APIError.self) { for try await _ in socket.messages {} }
        #expect(error?.kind == .transport(.timedOut), "\(String(describing: error))")
    }

    // MARK: Hostile peers (the review of issue 27)

    /// A hostile answer to the handshake: the path, the error kind it must end with, and words of
    /// the error's message.
    struct HostileHandshake: Sendable, CustomTestStringConvertible {
        let path: String
        let kind: APIError.Kind
        let words: String
        var testDescription: String { path }
    }

    @Test(
        "hostile handshakes fail at their bound, not at the deadline, and the loop that read them stays free",
        arguments: [
            // 100 Continue heads without end: the 17th fails.
            HostileHandshake(path: "interim-flood", kind: .transport(.badResponse), words: "interim"),
            // A refusal's chunk-size line that never ends: 4 KiB of it fails.
            HostileHandshake(path: "chunk-noend", kind: .transport(.badResponse), words: "chunk-size line"),
            // A refusal's one-byte chunks with 4,000-byte extensions, without end: 4 MiB on the wire.
            HostileHandshake(path: "chunk-extensions", kind: .transport(.responseTooLarge), words: "on the wire"),
        ])
    func hostileHandshake(_ hostile: HostileHandshake) async throws {
        let client = try client(LocalServers.rawWebSocket)
        let error = await #expect(throws: APIError.self) {
            _ = try await client.webSocket(
                WebSocketRequest(
                    path: Path(stringLiteral: hostile.path), query: ["seconds": "100"], timeout: .seconds(60)))
        }
        #expect(error?.kind == hostile.kind, "\(String(describing: error))")
        #expect(error?.message.contains(hostile.words) == true, "\(String(describing: error))")
        // The loop that read them is free: the next socket on the same transport opens.
        let socket = try await client.webSocket(.socket("echo"))
        try await socket.send(text: "after \(hostile.path)")
        var iterator = socket.messages.makeAsyncIterator()
        #expect(text(try await iterator.next()) == "after \(hostile.path)")
        try await socket.close()
    }

    @Test("a refused handshake's body of 500,000 one-byte chunks is read whole (3.5 MB on the wire, once)")
    func chunkedRefusal() async throws {
        let error = await #expect(throws: APIError.self) {
            _ = try await client(LocalServers.rawWebSocket).webSocket(
                WebSocketRequest(path: "chunked-refusal", query: ["n": "500000"], timeout: .seconds(60)))
        }
        #expect(error?.kind == .unacceptableStatus(.serviceUnavailable), "\(String(describing: error))")
        #expect(error?.response?.body == Data(repeating: UInt8(ascii: "a"), count: 500_000))
    }

    @Test("keepalive during a slow close: close() waits for the peer's close frame, not failing on a ping")
    func keepaliveDuringClose() async throws {
        let socket = try await client(LocalServers.rawWebSocket).webSocket(
            .socket("slow-close", query: ["delay": "1.5"]),
            options: WebSocketOptions(
                closeTimeout: .seconds(45), pingInterval: .milliseconds(100), pongTimeout: .seconds(45)))
        try await Task.sleep(for: .milliseconds(300))
        let closure = try await socket.close(reason: "bye")
        #expect(closure.code == .normalClosure)
    }

    @Test("a peer that never reads: a cancelled send returns at once, and close() lets the connection go")
    func peerThatNeverReads() async throws {
        let socket = try await client(LocalServers.rawWebSocket).webSocket(
            .socket("no-read", query: ["seconds": "100"]), options: WebSocketOptions(closeTimeout: .seconds(1)))
        // 32 MiB: more than the kernel's buffers on both sides hold, so the send waits for the peer.
        let big = Data(count: 32 << 20)
        let stuck = Task { try await socket.send(big) }
        try await Task.sleep(for: .seconds(1))
        stuck.cancel()
        let result = await stuck.result
        #expect(throws: CancellationError.self) { try result.get() }
        // A second send waits behind the first's bytes; close() ends the connection after the
        // close timeout, and the waiting send with it (not when the peer gives up, 100 s later).
        let waiting = Task { try await socket.send(big) }
        // Time for it to queue behind the first (were it late, close() would refuse it at once).
        try await Task.sleep(for: .milliseconds(500))
        let error = await #expect(throws: APIError.self) { try await socket.close() }
        #expect(error?.kind == .transport(.timedOut), "\(String(describing: error))")
        let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = await waiting.result
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(45))
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        #expect(ended, "a send still waited 45 s after close() gave up")
    }
}
