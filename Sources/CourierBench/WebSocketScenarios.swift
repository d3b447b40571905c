import Courier
import Foundation

/// Echoes over a WebSocket against the same exchange as HTTP requests on a kept-alive connection
/// (the baseline: `POST /echo` to scripts/servers/httpecho.py, on the same asyncio event loop as
/// the WebSocket server), and against the `websockets` package's own client (scripts/bench_ws.py)
/// as an outside reference. Each socket is opened before its round's clock starts and closed
/// after it; compression is off on both sides (random payloads do not compress).
func webSocketScenarios(_ settings: Settings, scale: Int) -> [Scenario] {
    guard let socketBase = settings.webSocketBase, let echoBase = settings.httpEchoBase else { return [] }
    let transport = CurlTransport()
    let http = APIClient(baseURL: echoBase, transport: transport)
    let sockets = APIClient(baseURL: socketBase, transport: transport)
    let small = Data(repeating: UInt8(ascii: "x"), count: 32)
    let large = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })

    func implementations(_ payload: Data, reference mode: String) -> [Implementation] {
        var list: [Implementation] = [
            .runs("HTTP POST echo, CurlTransport, kept-alive") {
                let echoed = try await http.send(
                    Request(method: .post, path: "echo", body: .data(payload), as: Data.self))
                guard echoed.count == payload.count else { throw EchoMismatch() }
            },
            Implementation(name: "WebSocket, CurlTransport") { count, _, _ in
                let socket = try await sockets.webSocket(.socket("echo-plain"))
                defer { Task { try? await socket.close() } }
                let message: WebSocketMessage =
                    payload.count < 1_024
                    ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)
                let reader = MessageReader(socket.messages.makeAsyncIterator())
                return try await measureRuns(count: count) {
                    try await socket.send(message)
                    guard try await reader.next() != nil else { throw EchoMismatch() }
                }
            },
        ]
        if let python = settings.webSocketReference {
            list.append(
                .program(
                    "websockets client (Python)", path: python,
                    url: socketBase, leadingArguments: ["scripts/bench_ws.py", "--program", mode]))
        }
        return list
    }

    return [
        Scenario(
            name: "echo 32 bytes, one at a time (WebSocket)", count: 2_000 / scale, concurrency: 1,
            implementations: implementations(small, reference: "roundtrip")),
        Scenario(
            name: "echo 1 MiB, one at a time (WebSocket)", count: 100 / scale, concurrency: 1,
            implementations: implementations(large, reference: "throughput")),
    ]
}

struct EchoMismatch: Error {}

/// A socket's message iterator for one round of echoes.
///
/// `@unchecked Sendable`: `measureRuns` calls its operation one run after another, never two at once,
/// so the iterator is used by one task at a time.
final class MessageReader: @unchecked Sendable {
    private var iterator: WebSocket.Messages.AsyncIterator

    init(_ iterator: WebSocket.Messages.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> WebSocketMessage? { try await iterator.next() }
}
