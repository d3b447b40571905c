import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Records the waits of a reconnecting socket instead of sleeping them.
private final class RecordedWaits: Sendable {
    private let waits = Locked<[Duration]>([])
    var all: [Duration] { waits.withLock { $0 } }
    func record(_ wait: Duration) { waits.withLock { $0.append(wait) } }
}

private func reconnecting(
    _ client: APIClient, options: WebSocketReconnectionOptions = .init(), waits: RecordedWaits
) -> ReconnectingWebSocket {
    var socket = client.reconnectingWebSocket(.socket("chat"), options: options)
    socket.sleep = { wait in
        try Task.checkCancellation()
        waits.record(wait)
    }
    socket.jitter = { 1 }
    return socket
}

@Suite("WebSocket: the reconnecting wrapper")
struct ReconnectingWebSocketTests {
    @Test("a server that accepts and closes at once: waits double from the initial backoff to the cap, no tight loop")
    func backoffAgainstAcceptAndClose() async throws {
        let (client, stub) = socketClient { _ in }  // returns at once: the peer closes with 1000
        let waits = RecordedWaits()
        var connections = 0
        for try await event in reconnecting(client, options: .init(maximumDelay: .seconds(10)), waits: waits) {
            if case .connected = event { connections += 1 }
            if connections == 7 { break }
        }
        #expect(waits.all == [1, 2, 4, 8, 10, 10].map { Duration.seconds($0) })
        #expect(stub.webSocketPeers.count == 7)
        // Seven connections took at least 35 s of waiting: about one every five seconds at most.
        #expect(waits.all.reduce(.zero, +) >= .seconds(35))
    }

    @Test("jitter draws each backoff between half and all of it, never under the delay")
    func jitterAndFloor() async throws {
        let (client, _) = socketClient { _ in }
        let waits = RecordedWaits()
        var socket = reconnecting(client, waits: waits)
        socket.jitter = { 0 }
        var connections = 0
        for try await event in socket {
            if case .connected = event { connections += 1 }
            if connections == 4 { break }
        }
        // 1 s, 2 s, 4 s halved, but never under the 1 s delay.
        #expect(waits.all == [1, 1, 2].map { Duration.seconds($0) })
    }

    @Test("a connection that brought messages resets the backoff: the next wait is the delay")
    func messagesResetBackoff() async throws {
        let (client, _) = socketClient { peer in try await peer.send(text: "tick") }
        let waits = RecordedWaits()
        var messages = 0
        var disconnections = 0
        for try await event in reconnecting(client, waits: waits) {
            switch event {
            case .message(let message):
                #expect(message == .text("tick"))
                messages += 1
            case .disconnected(let close, let error):
                #expect(close.code == .normalClosure)
                #expect(error == nil)
                disconnections += 1
            case .connected: break
            }
            if messages == 4 { break }
        }
        #expect(waits.all.allSatisfy { $0 == .seconds(1) })
        #expect(waits.all.count == 3)
    }

    @Test("it gives up after maximumConsecutiveFailures, and at once on a status reconnecting cannot mend")
    func givesUp() async throws {
        let (client, _) = socketClient(answering: [.refuse(.status(.serviceUnavailable))]) { _ in }
        let waits = RecordedWaits()
        let error = await #expect(throws: APIError.self) {
            for try await _ in reconnecting(client, options: .init(maximumConsecutiveFailures: 2), waits: waits) {}
        }
        #expect(error?.kind == .unacceptableStatus(.serviceUnavailable))
        #expect(waits.all.count == 2)
        let (refusing, _) = socketClient(answering: [.refuse(.status(.forbidden))]) { _ in }
        let forbidden = await #expect(throws: APIError.self) {
            for try await _ in reconnecting(refusing, waits: waits) {}
        }
        #expect(forbidden?.kind == .unacceptableStatus(.forbidden))
    }

    @Test("it ends after the caller closes the socket it was given")
    func endsWhenCallerCloses() async throws {
        let (client, _) = socketClient(conversation: echo)
        let waits = RecordedWaits()
        var events: [String] = []
        for try await event in reconnecting(client, waits: waits) {
            switch event {
            case .connected(let socket):
                events.append("connected")
                try await socket.send(text: "hi")
                Task { try await socket.close() }
            case .message: events.append("message")
            case .disconnected(let close, _): events.append("disconnected \(close.code.rawValue)")
            }
        }
        #expect(events.first == "connected")
        #expect(events.last == "disconnected 1000")
        #expect(waits.all.isEmpty)
    }

    @Test("the peer closing with 1008 (policy violation) ends it with an error: reconnecting would not mend it")
    func peerBlamesClient() async throws {
        let (client, stub) = socketClient { peer in
            try await peer.close(code: .policyViolation, reason: "banned")
            for try await _ in peer.messages {}
        }
        let waits = RecordedWaits()
        let socket = reconnecting(client, waits: waits)
        let error = await #expect(throws: APIError.self) {
            try await finishing { for try await _ in socket {} }
        }
        #expect(error?.message.contains("banned") == true)
        #expect(stub.webSocketPeers.count == 1)
    }
}
