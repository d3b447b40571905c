import Foundation

@testable import Courier

/// The WebSocket protocol core (frame parser, message assembler, inflater, connection) on server
/// bytes: never traps; the same actions whatever the pieces the bytes arrive in; nothing after the
/// ending; every message within the size limit (inflated ones included: a bomb stops at the
/// limit); every write a valid masked client frame sequence.
///
/// The first byte picks the setup: bit 0 permessage-deflate, bit 1 no context takeover, bit 2 a
/// small (4 KiB) message limit; the second, the piece size.
let webSocketTarget = FuzzTarget(name: "websocket") { input in
    var reader = FuzzReader(input)
    let setup = reader.byte()
    let pieceSize = Int(reader.byte() % 16) + 1
    let bytes = reader.rest()
    let compression: PerMessageDeflate.Parameters? =
        setup & 1 == 0
        ? nil
        : PerMessageDeflate.Parameters(serverNoContextTakeover: setup & 2 != 0, clientNoContextTakeover: setup & 2 != 0)
    let limit = setup & 4 != 0 ? 4096 : 1 << 20
    func run(_ pieces: [[UInt8]]) -> [WebSocketAction] {
        guard
            var connection = try? WebSocketConnection(
                agreement: .init(subprotocol: nil, compression: compression),
                configuration: .init(maximumMessageSize: limit, maskKeys: .fixed(0x0102_0304)))
        else { violated("websocket: zlib", "could not be loaded") }
        var actions: [WebSocketAction] = []
        for piece in pieces {
            let wasFinished = connection.isFinished
            let new = connection.receive(piece)
            if wasFinished && !new.isEmpty { violated("websocket: actions after the ending", "\(new)") }
            actions += new
        }
        return actions
    }
    let whole = run([bytes])
    let cut = run(
        stride(from: 0, to: bytes.count, by: pieceSize).map { Array(bytes[$0..<min($0 + pieceSize, bytes.count)]) })
    if whole != cut { violated("websocket: the same actions whatever the pieces", "\(whole) vs \(cut)") }
    var finishes = 0
    for action in whole {
        switch action {
        case .deliver(.text(let text)):
            if text.utf8.count > limit { violated("websocket: text within the limit", "\(text.utf8.count)") }
        case .deliver(.binary(let data)):
            if data.count > limit { violated("websocket: binary within the limit", "\(data.count)") }
        case .write(let written):
            var parser = WebSocketFrameParser(maximumFramePayload: .max, readsClientFrames: true)
            do throws(WebSocketProtocolViolation) {
                try parser.parse(written) { _ in }
            } catch {
                violated("websocket: writes are valid client frames", "\(error)")
            }
            if !parser.isAtFrameBoundary { violated("websocket: writes end on a frame boundary") }
        case .finish:
            finishes += 1
        default:
            break
        }
    }
    if finishes > 1 || (finishes == 1 && !(whole.last.map { if case .finish = $0 { true } else { false } } ?? false)) {
        violated("websocket: one ending, last", "\(whole)")
    }
}
