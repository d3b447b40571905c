import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("WebSocket: leaving, cancelling, one reader, a bounded buffer, keepalive")
struct WebSocketLifecycleTests {
    @Test("leaving the for loop closes the socket with 1001 (going away)")
    func leavingTheLoopCloses() async throws {
        let (client, stub) = socketClient { peer in
            try await peer.send(text: "one")
            try await peer.send(text: "two")
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        for try await message in socket.messages {
            #expect(message == .text("one"))
            break
        }
        #expect(try await eventually { stub.webSocketPeers.first?.clientClose != nil })
        #expect(stub.webSocketPeers.first?.clientClose?.code == .goingAway)
        #expect(try await finishing { try await socket.ended() }.code == .goingAway)
    }

    @Test("cancelling the reading task ends its loop with CancellationError and closes with 1001")
    func cancellationCloses() async throws {
        let (client, stub) = socketClient { peer in
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        let started = Latch()
        let reader = Task {
            started.open()
            for try await _ in socket.messages {}
        }
        try await started.wait()
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(try await eventually { stub.webSocketPeers.first?.clientClose?.code == .goingAway })
    }

    @Test("a second reader is refused while the first reads")
    func secondReaderRefused() async throws {
        let (client, _) = socketClient(conversation: echo)
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        var first = socket.messages.makeAsyncIterator()
        let second = socket.messages.makeAsyncIterator()
        let error = await #expect(throws: APIError.self) {
            try await finishing {
                var second = second
                return try await second.next()
            }
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("one reader at a time") == true)
        try await socket.send(text: "still mine")
        #expect(try await first.next() == .text("still mine"))
    }

    @Test("a peer flooding a socket nobody reads: the engine stops reading the connection, then catches up")
    func boundedBuffer() async throws {
        let total = 500
        let (client, stub) = socketClient { peer in
            for index in 0..<total { try await peer.send(text: "message \(index)") }
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: .init(maximumBufferedMessages: 4))
        let peer = try #require(stub.webSocketPeers.first)
        // The peer's sends back up: the connection's queue is full and the client reads no more.
        #expect(try await eventually { peer.isSendWaiting })
        let reads = peer.clientReadCount
        #expect(reads <= 4 + 1, "the engine read \(reads) times with a buffer of 4 messages")
        var received = 0
        for try await message in socket.messages {
            #expect(message == .text("message \(received)"))
            received += 1
            if received == total { break }
        }
        #expect(received == total)
    }

    @Test("ping() from a task already cancelled throws CancellationError at once, as send does")
    func pingFromACancelledTask() async throws {
        let (client, _) = socketClient { peer in
            peer.answersPings = false
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        let ping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await socket.ping()
        }
        // Before: the waiter was registered after the cancellation handler ran, and waited for a
        // pong that never came, until the socket closed (here: after 30 s, failing the ping with
        // an APIError instead).
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            _ = try? await socket.close()
        }
        await #expect(throws: CancellationError.self) { try await ping.value }
        watchdog.cancel()
        _ = try await finishing { try await socket.close() }
    }

    @Test("pings while one waits to be written share its frame; each is answered by its pong")
    func pingsShareAQueuedFrame() async throws {
        let (client, stub) = socketClient { peer in
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(.socket("chat"), options: patient)
        let reader = Task { for try await _ in socket.messages {} }
        let rounds = try await withThrowingTaskGroup(of: Duration.self) { group in
            for _ in 0..<50 { group.addTask { try await socket.ping() } }
            return try await group.reduce(into: [Duration]()) { $0.append($1) }
        }
        #expect(rounds.count == 50)
        // At least one frame, at most one per ping.
        #expect((1...50).contains(stub.webSocketPeers.first?.pingsReceived ?? 0))
        _ = try await finishing { try await socket.close() }
        _ = await reader.result
    }

    @Test("keepalive: a peer that stops answering pings ends the socket with timedOut")
    func keepaliveDetectsDeadPeer() async throws {
        let (client, stub) = socketClient { peer in
            peer.answersPings = false
            for try await _ in peer.messages {}
        }
        let socket = try await client.webSocket(
            .socket("chat"), options: .init(pingInterval: .milliseconds(20), pongTimeout: .milliseconds(200)))
        let error = await #expect(throws: APIError.self) {
            try await finishing { for try await _ in socket.messages {} }
        }
        #expect(error?.kind == .transport(.timedOut))
        #expect(error?.message.contains("keepalive") == true)
        #expect(socket.closure?.code == .abnormalClosure)
        #expect((stub.webSocketPeers.first?.pingsReceived ?? 0) >= 1)
    }

    @Test("keepalive: a peer that answers keeps the socket open through many pings")
    func keepaliveKeepsLivePeer() async throws {
        let (client, stub) = socketClient(conversation: echo)
        let socket = try await client.webSocket(
            .socket("chat"), options: .init(pingInterval: .milliseconds(10), pongTimeout: .seconds(45)))
        let reader = Task { for try await _ in socket.messages {} }
        #expect(try await eventually { (stub.webSocketPeers.first?.pingsReceived ?? 0) >= 5 })
        #expect(socket.closure == nil)
        try await socket.close()
        try await reader.value
    }

    @Test("dropping an unread socket closes it")
    func droppingCloses() async throws {
        let (client, stub) = socketClient(conversation: echo)
        do {
            _ = try await client.webSocket(.socket("chat"), options: patient)
        }
        #expect(try await eventually { stub.webSocketPeers.first?.clientClose?.code == .goingAway })
    }
}
