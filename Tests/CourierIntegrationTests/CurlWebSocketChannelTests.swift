import Courier
import Foundation
import Testing

/// CurlTransport's WebSocket channel on real loopback sockets (`scripts/servers/wsecho.py`, the
/// `websockets` package), driven at the channel level: ``WebSocketHandshake``, `openWebSocket`, and
/// a ``WebSocketConnection`` fed by hand.
@Suite("CurlTransport WebSocket channel")
struct CurlWebSocketChannelTests {
    /// A connection and its channel, driven by hand: what a socket's pump does, minus timers.
    final class Peer: @unchecked Sendable {
        var connection: WebSocketConnection
        let channel: any WebSocketChannel
        var delivered: [WebSocketMessage] = []
        var ending: WebSocketEnding?
        /// Whether `.closeConnection` closes the channel (else the peer's TCP close is awaited).
        var closesChannel = true

        init(connection: WebSocketConnection, channel: any WebSocketChannel) {
            self.connection = connection
            self.channel = channel
        }

        func send(_ message: WebSocketMessage) async throws {
            try await carryOut(connection.send(message))
        }

        func close() async throws {
            try await carryOut(connection.close(timeout: .seconds(30)))
        }

        /// The next message; `nil` once the connection finished.
        func receive() async throws -> WebSocketMessage? {
            while delivered.isEmpty {
                guard ending == nil else { return nil }
                guard let bytes = try await channel.read() else {
                    try await carryOut(connection.connectionEnded())
                    return nil
                }
                try await carryOut(connection.receive(bytes))
            }
            return delivered.removeFirst()
        }

        private func carryOut(_ actions: [WebSocketAction]) async throws {
            for action in actions {
                switch action {
                case .write(let bytes): try await channel.write(bytes)
                case .deliver(let message): delivered.append(message)
                case .finish(let ending): self.ending = ending
                case .closeConnection: if closesChannel { channel.close() }
                default: break
                }
            }
        }
    }

    static func wsURL(_ server: ScriptServer, path: String) throws -> URL {
        var components = try #require(URLComponents(url: server.url, resolvingAgainstBaseURL: false))
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.path = path
        return try #require(components.url)
    }

    static func server(tls: TestCertificates? = nil) async throws -> ScriptServer {
        let arguments = tls.map { ["--tls", $0.serverCertificate.path, $0.serverKey.path] } ?? []
        return try await ScriptServer.start(script: "wsecho.py", arguments: arguments, lifetime: 300)
    }

    /// Opens a socket: the response, and a peer for a `101`.
    static func open(
        _ transport: CurlTransport, _ url: URL, compression: Bool = false, timeout: Duration? = nil
    ) async throws -> (response: HTTPResponse, peer: Peer?) {
        let handshake = try WebSocketHandshake(compression: compression ? .init() : nil)
        let request = HTTPRequest(url: url, headers: handshake.requestHeaders, timeout: timeout)
        let (response, channel) = try await transport.openWebSocket(request)
        guard let channel else { return (response, nil) }
        let agreement = try handshake.accept(status: response.status.code, headers: response.headers)
        return (response, Peer(connection: try WebSocketConnection(agreement: agreement), channel: channel))
    }

    /// The operation's result, or a failure once `seconds` passed (a hang fails instead of blocking the run).
    static func bounded<Value: Sendable>(
        _ seconds: Int = 45, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        // One value, or none for the timer.
        try await withThrowingTaskGroup(of: [Value].self) { group in
            group.addTask { [try await operation()] }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return []
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first.first else {
                throw CocoaError(.userCancelled, userInfo: [NSLocalizedDescriptionKey: "no outcome in \(seconds) s"])
            }
            return value
        }
    }

    static func certificates() throws -> TestCertificates {
        try #require(TestCertificates.shared, "openssl could not make the test certificates")
    }

    @Test("small and 1 MiB messages echo, text and binary, with and without compression", arguments: [false, true])
    func echo(compression: Bool) async throws {
        let server = try await Self.server()
        let transport = CurlTransport()
        let (response, peer) = try await Self.open(
            transport, Self.wsURL(server, path: "/echo"), compression: compression)
        let socket = try #require(peer, "\(response)")
        #expect(response.status.code == 101)
        #expect((socket.connection.agreement.compression != nil) == compression)
        let large = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        for message in [WebSocketMessage.text("hello"), .binary(Data([1, 2, 3])), .binary(large), .text("after")] {
            try await socket.send(message)
            #expect(try await socket.receive() == message)
        }
        try await socket.close()
        #expect(try await socket.receive() == nil)
        guard case .closed(let frame, initiatedByPeer: false) = socket.ending else {
            Issue.record("\(String(describing: socket.ending))")
            return
        }
        #expect(frame.code == .normalClosure)
    }

    @Test("a peer that closes: its close frame, then read() returns nil when its TCP side closes")
    func peerCloses() async throws {
        let server = try await Self.server()
        let transport = CurlTransport()
        let (_, peer) = try await Self.open(transport, Self.wsURL(server, path: "/bye"))
        let socket = try #require(peer)
        socket.closesChannel = false
        #expect(try await socket.receive() == nil)
        guard case .closed(let frame, initiatedByPeer: true) = socket.ending else {
            Issue.record("\(String(describing: socket.ending))")
            return
        }
        #expect(frame.code == .normalClosure && frame.reason == "bye", "\(frame)")
        #expect(try await socket.channel.read() == nil)
        #expect(try await socket.channel.read() == nil)
        withExtendedLifetime(transport) {}
    }

    @Test("a first frame in the 101's packet is the first read's")
    func firstFrameWithHead() async throws {
        let server = try await Self.server()
        let transport = CurlTransport()
        let (_, peer) = try await Self.open(transport, Self.wsURL(server, path: "/first-frame"))
        let socket = try #require(peer)
        #expect(try await Self.bounded { try await socket.receive() } == .text("first"))
        try await socket.send(.text("then"))
        #expect(try await socket.receive() == .text("then"))
        withExtendedLifetime(transport) {}
    }

    @Test("a refused handshake gives its response with the body and no channel")
    func refused() async throws {
        let server = try await Self.server()
        let (response, peer) = try await Self.open(CurlTransport(), Self.wsURL(server, path: "/unauthorized"))
        #expect(peer == nil)
        #expect(response.status.code == 401)
        #expect(String(decoding: response.body, as: UTF8.self) == "token expired")
    }

    @Test("a server that never answers the handshake fails within the request's timeout")
    func silentServer() async throws {
        let server = try await Self.server()
        let started = ContinuousClock.now
        let url = try Self.wsURL(server, path: "/silent")
        let error = await #expect(throws: APIError.self) {
            try await Self.bounded { try await Self.open(CurlTransport(), url, timeout: .seconds(1)).response }
        }
        let elapsed = ContinuousClock.now - started
        #expect(error?.kind == .transport(.deadlineExceeded), "\(String(describing: error))")
        #expect(elapsed >= .seconds(1) && elapsed < .seconds(45), "\(elapsed)")
    }

    @Test("cancelling the opening task ends it at once with CancellationError")
    func cancelOpening() async throws {
        let server = try await Self.server()
        let url = try Self.wsURL(server, path: "/silent")
        let transport = CurlTransport()
        let task = Task { try await Self.open(transport, url, timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - started < .seconds(45))
    }

    @Test("cancelling a waiting read closes the channel")
    func cancelRead() async throws {
        let server = try await Self.server()
        let transport = CurlTransport()
        let (_, peer) = try await Self.open(transport, Self.wsURL(server, path: "/echo"))
        let channel = try #require(peer).channel
        let reader = Task { try await channel.read() }
        try await Task.sleep(for: .milliseconds(200))
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        await #expect(throws: CancellationError.self) { try await channel.write([0x81, 0x80, 0, 0, 0, 0]) }
        withExtendedLifetime(transport) {}
    }

    @Test("close() from another thread ends a waiting read")
    func closeFromAnotherThread() async throws {
        let server = try await Self.server()
        let transport = CurlTransport()
        let (_, peer) = try await Self.open(transport, Self.wsURL(server, path: "/echo"))
        let channel = try #require(peer).channel
        let reader = Task { try await channel.read() }
        try await Task.sleep(for: .milliseconds(200))
        DispatchQueue.global().async { channel.close() }
        await #expect(throws: CancellationError.self) { try await reader.value }
        await #expect(throws: CancellationError.self) { try await channel.read() }
        withExtendedLifetime(transport) {}
    }

    @Test("an open socket keeps its transport; once the socket is gone, the transport goes (no cycle)")
    func socketKeepsTransport() async throws {
        let server = try await Self.server()
        weak var released: CurlTransport?
        try await {
            let socket = try await {
                let transport = CurlTransport()
                released = transport
                return try #require(try await Self.open(transport, Self.wsURL(server, path: "/echo")).peer)
            }()
            for round in 1...3 {
                try await socket.send(.text("round \(round)"))
                #expect(try await socket.receive() == .text("round \(round)"))
            }
            #expect(released != nil)
            try await socket.close()
        }()
        var gone = false
        for _ in 0..<200 where !gone {
            gone = released == nil
            if !gone { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(gone, "the transport outlived its socket by 10 s")
    }

    @Test("wss with the test CA; without it the handshake is a TLS failure")
    func secure() async throws {
        let pki = try Self.certificates()
        let server = try await Self.server(tls: pki)
        let url = try Self.wsURL(server, path: "/echo")
        #expect(url.scheme == "wss")
        let trusting = CurlTransport(configuration: .init(tls: .init(certificateAuthorities: pki.authority)))
        let (_, peer) = try await Self.open(trusting, url, compression: true)
        let socket = try #require(peer)
        try await socket.send(.text("secret"))
        #expect(try await socket.receive() == .text("secret"))
        let error = await #expect(throws: APIError.self) { try await Self.open(CurlTransport(), url) }
        #expect(error?.kind == .transport(.tls), "\(String(describing: error))")
    }

    @Test("wss with reads smaller than a TLS record: bytes TLS decrypted already are read without a poll")
    func tlsHeldBytes() async throws {
        let pki = try Self.certificates()
        let server = try await Self.server(tls: pki)
        let transport = CurlTransport(
            configuration: .init(tls: .init(certificateAuthorities: pki.authority)), webSocketReadSize: 1000)
        let (_, peer) = try await Self.open(transport, Self.wsURL(server, path: "/echo"))
        let socket = try #require(peer)
        let message = WebSocketMessage.binary(Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) }))
        // Bytes stranded inside TLS would wait for the loop's next turn (a second at most, when
        // nothing else moves): ten messages then take minutes instead of milliseconds.
        let echoed = try await Self.bounded {
            var echoed: [WebSocketMessage?] = []
            for _ in 0..<10 {
                try await socket.send(message)
                echoed.append(try await socket.receive())
            }
            return echoed
        }
        #expect(echoed == Array(repeating: message, count: 10))
        withExtendedLifetime(transport) {}
    }

    @Test("ws and wss through the CONNECT proxy, each in a tunnel of its own")
    func throughProxy() async throws {
        let pki = try Self.certificates()
        let plain = try await Self.server()
        let secure = try await Self.server(tls: pki)
        let proxy = try await ScriptServer.start(script: "proxy.py", lifetime: 120)
        let transport = CurlTransport(
            configuration: .init(tls: .init(certificateAuthorities: pki.authority), proxy: proxy.url))
        for server in [plain, secure] {
            let (_, peer) = try await Self.open(transport, Self.wsURL(server, path: "/echo"))
            let socket = try #require(peer)
            try await socket.send(.text("via proxy"))
            #expect(try await socket.receive() == .text("via proxy"))
        }
        struct Tunnels: Decodable, Sendable { var tunnels: Int }
        let counts = try await APIClient(baseURL: proxy.url, transport: CurlTransport())
            .send(.get("tunnels", as: Tunnels.self))
        #expect(counts.tunnels == 2)
    }

    @Test("a reader that stops reading stops the socket: the server backs up, HTTP still flows")
    func flowControl() async throws {
        let server = try await Self.server()
        let transport = CurlTransport(configuration: .init(loops: 1))
        let (_, peer) = try await Self.open(transport, Self.wsURL(server, path: "/flood"))
        let socket = try #require(peer)
        // Some flow first: the flood is moving.
        for _ in 0..<16 { _ = try await socket.receive() }
        // Then nothing is read; the same transport (one loop) answers HTTP meanwhile. (The resident
        // size is measured in WebSocketMemoryTests, which runs alone.)
        func flooded() async throws -> Int {
            let response = try await transport.send(HTTPRequest(url: server.url.appending(path: "flooded")))
            return Int(String(decoding: response.body, as: UTF8.self)) ?? -1
        }
        try await Task.sleep(for: .seconds(2))
        let first = try await flooded()
        try await Task.sleep(for: .seconds(2))
        let second = try await flooded()
        #expect(second - first < 4 << 20, "the server went on sending: \(first) then \(second) bytes")
        #expect(second < 64 << 20, "\(second) bytes sent to a reader that stopped")
        // And reading again takes up the flow.
        for _ in 0..<16 { _ = try await socket.receive() }
        socket.channel.close()
    }
}
