import Foundation
import Testing

@testable import Courier

/// The sans-I/O connection: what it asks its transport to do for each event (bytes in, a message
/// out, a close, a timer, the connection lost).
@Suite("WebSocket connection")
struct WebSocketConnectionTests {
    static let key: UInt32 = 0x37fa_213d

    private func connection(
        compression: PerMessageDeflate.Parameters? = nil, maximumMessageSize: Int = 1 << 20
    ) throws -> WebSocketConnection {
        try WebSocketConnection(
            agreement: .init(subprotocol: nil, compression: compression),
            configuration: .init(maximumMessageSize: maximumMessageSize, maskKeys: .fixed(Self.key)))
    }

    /// The frames in a write action, unmasked.
    private func written(_ actions: [WebSocketAction]) -> [ParsedFrame] {
        actions.flatMap { action -> [ParsedFrame] in
            if case .write(let bytes) = action { return clientFrames(bytes) }
            return []
        }
    }

    @Test("§5.7: a ping is answered with a pong carrying its payload, masked", arguments: WebSocketDelivery.allCases)
    func pingPong(delivery: WebSocketDelivery) throws {
        var socket = try connection()
        var actions: [WebSocketAction] = []
        for piece in delivery.pieces([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]) { actions += socket.receive(piece) }
        #expect(actions == [.write([0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])])
    }

    @Test("messages are delivered; pongs are reported")
    func delivery() throws {
        var socket = try connection()
        let actions = socket.receive(
            serverFrame(.text, Array("hi".utf8)) + serverFrame(.pong, [7]) + serverFrame(.binary, [1, 2]))
        #expect(actions == [.deliver(.text("hi")), .receivedPong([7]), .deliver(.binary(Data([1, 2])))])
    }

    @Test("sent messages are masked frames; compressed when deflate was agreed")
    func sending() throws {
        var plain = try connection()
        let frames = written(plain.send(.text("Hello")))
        #expect(frames.map(\.payload) == [Array("Hello".utf8)])
        #expect(frames.first?.header.maskKey == Self.key)
        var compressed = try connection(compression: .init())
        let deflated = written(compressed.send(.text("Hello")))
        #expect(deflated.map(\.header.isCompressed) == [true])
        #expect(deflated.map(\.payload) == [[0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]])
        // client_max_window_bits=8: zlib cannot, so messages go out uncompressed.
        var eight = try connection(compression: .init(clientMaxWindowBits: 8))
        let uncompressed = eight.send(.binary(Data([1, 2, 3])))
        #expect(written(uncompressed).map(\.header.isCompressed) == [false])
    }

    @Test("the peer's close is echoed with its code, then the connection closes")
    func peerCloses() throws {
        var socket = try connection()
        let actions = socket.receive(serverFrame(.close, [0x03, 0xE9] + Array("bye".utf8)))
        #expect(actions.count == 3)
        #expect(written(Array(actions.prefix(1))).map(\.payload) == [[0x03, 0xE9]])
        #expect(
            Array(actions.dropFirst())
                == [.closeConnection, .finish(.closed(.init(code: .goingAway, reason: "bye"), initiatedByPeer: true))])
        #expect(!socket.canSend)
        let late = socket.send(.text("late")) + socket.receive(serverFrame(.ping))
        #expect(late.isEmpty)
        // A close without a code is echoed without one.
        var bare = try connection()
        let echo = bare.receive(serverFrame(.close))
        #expect(written(echo).map(\.payload) == [[]])
    }

    @Test("our close waits for the peer's: messages still arrive, pings are not answered, its close ends it")
    func weClose() throws {
        var socket = try connection()
        let start = try socket.close(code: .normalClosure, reason: "done", timeout: .seconds(5))
        #expect(written(Array(start.prefix(1))).map(\.payload) == [[0x03, 0xE8] + Array("done".utf8)])
        #expect(start.last == .startTimer(.closeTimeout, after: .seconds(5)))
        let refused = try socket.send(.text("no")) + socket.close(timeout: .seconds(1))
        #expect(refused.isEmpty)
        let meanwhile = socket.receive(serverFrame(.text, [0x61]) + serverFrame(.ping, [1]))
        #expect(meanwhile == [.deliver(.text("a"))])
        let end = socket.receive(serverFrame(.close, [0x03, 0xE8]))
        #expect(
            end == [
                .cancelTimer(.closeTimeout), .closeConnection,
                .finish(.closed(.init(code: .normalClosure), initiatedByPeer: false)),
            ])
        #expect(socket.isFinished)
        let late = socket.timerFired(.closeTimeout)
        #expect(late.isEmpty)
    }

    @Test("a peer that never answers our close: the timeout closes the connection")
    func closeTimeout() throws {
        var socket = try connection()
        _ = try socket.close(timeout: .milliseconds(100))
        let fired = socket.timerFired(.closeTimeout)
        #expect(fired == [.closeConnection, .finish(.closeTimedOut)])
        let late = socket.receive(serverFrame(.close, [0x03, 0xE8]))
        #expect(late.isEmpty)
    }

    @Test("a code that may not be sent, or a ping over 125 bytes, is refused")
    func refusedCalls() throws {
        var socket = try connection()
        var refusals = 0
        do { _ = try socket.close(code: .abnormalClosure, timeout: .seconds(1)) } catch { refusals += 1 }
        do { _ = try socket.ping([UInt8](repeating: 0, count: 126)) } catch { refusals += 1 }
        #expect(refusals == 2)
        #expect(socket.canSend)
        let ping = try socket.ping([1, 2])
        #expect(written(ping).map(\.header.opcode) == [.ping])
    }

    @Test("a broken rule: close frame with the violation's code, connection closed, nothing more read")
    func failure() throws {
        var socket = try connection()
        let actions = socket.receive([0x83, 0x00] + serverFrame(.text, [0x61]))
        #expect(written(Array(actions.prefix(1))).map { Array($0.payload.prefix(2)) } == [[0x03, 0xEA]])
        #expect(actions.dropFirst().first == .closeConnection)
        guard case .finish(.failed(let violation)) = actions.last else {
            Issue.record("no failure: \(actions)")
            return
        }
        #expect(violation.closeCode == .protocolError)
        #expect(violation.apiError.kind == .transport(.webSocketProtocolViolation))
        let after = socket.receive(serverFrame(.text, [0x61]))
        #expect(after.isEmpty)
    }

    @Test("invalid UTF-8 closes with 1007, an oversized message with 1009, an invalid close code with 1002")
    func failureCodes() throws {
        for (bytes, code) in [
            (serverFrame(.text, [0xC0, 0x80]), WebSocketCloseCode.invalidPayloadData),
            (serverFrame(.binary, [UInt8](repeating: 0, count: 101)), .messageTooBig),
            (serverFrame(.close, [0x03, 0xED]), .protocolError),
            (serverFrame(.close, [0x03, 0xE8, 0xFF]), .invalidPayloadData),
        ] {
            var socket = try connection(maximumMessageSize: 100)
            let actions = socket.receive(bytes)
            guard case .finish(.failed(let violation)) = actions.last else {
                Issue.record("no failure for \(bytes)")
                continue
            }
            #expect(violation.closeCode == code)
            let sent = written(Array(actions.prefix(1))).first?.payload ?? []
            #expect(sent.prefix(2) == [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)][...])
        }
    }

    @Test("a failure after our close sends no second close frame")
    func failureWhileClosing() throws {
        var socket = try connection()
        _ = try socket.close(timeout: .seconds(5))
        let actions = socket.receive([0x83, 0x00])
        #expect(actions.first == .cancelTimer(.closeTimeout))
        #expect(written(actions).isEmpty)
    }

    @Test("the connection lost before the close handshake: connectionLost, the timer cancelled")
    func lost() throws {
        var open = try connection()
        let ended = open.connectionEnded()
        #expect(ended == [.finish(.connectionLost)])
        var closing = try connection()
        _ = try closing.close(timeout: .seconds(5))
        let first = closing.connectionEnded()
        let second = closing.connectionEnded()
        #expect(first == [.cancelTimer(.closeTimeout), .finish(.connectionLost)])
        #expect(second.isEmpty)
    }

    @Test("a close and the bytes after it in one read: the bytes after are ignored")
    func bytesAfterClose() throws {
        var socket = try connection()
        let actions = socket.receive(serverFrame(.close) + serverFrame(.text, [0x61]) + [0x83, 0x00])
        #expect(actions.filter { if case .deliver = $0 { true } else { false } }.isEmpty)
        #expect(actions.count == 3)
    }
}
