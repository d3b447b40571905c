import Courier
import Foundation
import Testing

/// CurlTransport with several loops, callers on its executor, and the queue of requests waiting
/// for a slot, against real sockets.
@Suite(
    "CurlTransport loops, executor and queue",
    .enabled(if: LocalServers.files != nil && LocalServers.faults != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct CurlLoopsTests {
    private struct Peer: Decodable, Sendable { let port: Int }

    /// Decodes anything, noting the name of the thread it was decoded on (loop threads are named
    /// `courier-curl…`).
    private struct ThreadProbe: Decodable, Sendable {
        let thread: String
        init(from decoder: any Decoder) throws {
            thread = Thread.current.name ?? ""
        }
    }

    private let files = LocalServers.files ?? URL(string: "http://127.0.0.1:9")!
    private let faults = LocalServers.faults ?? URL(string: "http://127.0.0.1:9")!

    @Test("600 requests, 12 in flight, over three loops keep to the per-host limit of connections and reuse them")
    func connectionsAcrossLoops() async throws {
        let client = APIClient(
            baseURL: files, transport: CurlTransport(configuration: .init(maximumConnectionsPerHost: 6, loops: 3)))
        let ports = Locked(Set<Int>())
        let next = Locked(0)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    while next.withLock({ next in
                        next += 1
                        return next <= 600
                    }) {
                        let peer = try await client.send(.get("peer", as: Peer.self))
                        ports.withLock { _ = $0.insert(peer.port) }
                    }
                }
            }
            try await group.waitForAll()
        }

        let connections = ports.withLock { $0.count }
        // Six per host in all, two per loop: more would mean a loop ignores its share, far fewer
        // than 600 that connections are kept.
        #expect(connections <= 6, "\(connections) connections for 600 requests")
        #expect(connections >= 3, "only \(connections) connections: the loops were not all used")
    }

    /// The name of the thread a response was decoded on, whatever its body.
    private static func decodedThread(_ path: Path) -> Request<String> {
        Request(path: path) { _, _ in Thread.current.name ?? "" }
    }

    /// An error body that notes the thread it was decoded on.
    private struct ThreadNotingError: ServerErrorBody {
        let thread: String
        init(from decoder: any Decoder) throws {
            thread = Thread.current.name ?? ""
        }
    }

    /// A failing route whose error body notes its thread.
    private struct FailingRoute: Route {
        typealias ErrorBody = ThreadNotingError
        let pad: Int
        var path: Path { "status/500" }
        var query: Query { ["pad": String(pad)] }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test(
        "a caller on the executor is resumed on a loop thread; a body up to 16 KiB is decoded there while the loop is idle, a larger one off it",
        arguments: [1, 3])
    func executorDecoding(loops: Int) async throws {
        let transport = CurlTransport(configuration: .init(loops: loops))
        let client = APIClient(baseURL: files, transport: transport)
        let executor = try #require(transport.executor)

        let (small, limit, past, page) = try await withTaskExecutorPreference(executor) {
            let small = try await client.send(.get("peer", as: ThreadProbe.self))
            let limit = try await client.send(Self.decodedThread("bytes/16384"))
            let past = try await client.send(Self.decodedThread("bytes/16385"))
            let page = try await client.send(.get("static/page.json", as: ThreadProbe.self))
            return (small, limit, past, page)
        }

        #expect(small.thread.hasPrefix("courier-curl"), "decoded a small body on \(small.thread)")
        #expect(limit.hasPrefix("courier-curl"), "decoded 16 KiB on \(limit) with the loop idle")
        #expect(!past.hasPrefix("courier-curl"), "decoded 16 KiB + 1 on \(past), a loop thread")
        #expect(!page.thread.hasPrefix("courier-curl"), "decoded 31 KB on \(page.thread), a loop thread")
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("a caller on the executor decodes an error body over 16 KiB off the loop, a small one on the idle loop")
    func executorErrorBody() async throws {
        let transport = CurlTransport(configuration: .init(loops: 1))
        let client = APIClient(baseURL: faults, transport: transport)
        let executor = try #require(transport.executor)

        func errorThread(pad: Int) async -> String? {
            await withTaskExecutorPreference(executor) {
                do {
                    _ = try await client.send(FailingRoute(pad: pad), as: Data.self)
                    return nil
                } catch {
                    return (error as? APIError)?.errorBody(as: ThreadNotingError.self)?.thread
                }
            }
        }
        let large = await errorThread(pad: 20_000)
        let small = await errorThread(pad: 10)
        #expect(large.map { !$0.hasPrefix("courier-curl") } == true, "a 20 KB error body decoded on \(large ?? "-")")
        #expect(small?.hasPrefix("courier-curl") == true, "a small error body decoded on \(small ?? "-")")
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("a caller on the executor decodes an 8 KB body off the loop while another transfer runs on it")
    func executorDecodingOnBusyLoop() async throws {
        let transport = CurlTransport(configuration: .init(loops: 1))
        let client = APIClient(baseURL: files, transport: transport)
        let stalled = APIClient(baseURL: faults, transport: transport)
        let executor = try #require(transport.executor)
        // Headers, then nothing for 120 s: a transfer that stays on the loop until it is cancelled.
        // (With 30 s, one run of the whole suite on a loaded machine made four requests in 25 s.)
        let stall = Task {
            try await stalled.send(
                Request(path: "stall", query: ["seconds": "120"], timeout: .seconds(150), as: Data.self))
        }
        defer { stall.cancel() }

        // The stalled transfer reaches the loop at some point after the task starts: from then on
        // every body of 4 KB or more leaves the loop (five in a row).
        let start = ContinuousClock.now
        var threads: [String] = []
        while ContinuousClock.now - start < .seconds(100),
            threads.suffix(5).filter({ !$0.hasPrefix("courier") }).count < 5
        {
            let thread = try await withTaskExecutorPreference(executor) {
                try await client.send(Self.decodedThread("bytes/8192"))
            }
            threads.append(thread)
            if thread.hasPrefix("courier-curl") { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(
            threads.suffix(5).allSatisfy { !$0.hasPrefix("courier-curl") } && threads.count >= 5,
            "8 KB bodies decoded on a busy loop: \(threads.suffix(5))")
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test(
        "a caller on the executor decodes an 8 KB body off the loop while a WebSocket is open on it",
        .enabled(if: LocalServers.webSocket != nil))
    func executorDecodingBesideWebSocket() async throws {
        let transport = CurlTransport(configuration: .init(loops: 1))
        let client = APIClient(baseURL: files, transport: transport)
        let sockets = APIClient(baseURL: try #require(LocalServers.webSocket), transport: transport)
        let executor = try #require(transport.executor)
        let socket = try await sockets.webSocket(.socket("echo"))

        let thread = try await withTaskExecutorPreference(executor) {
            try await client.send(Self.decodedThread("bytes/8192"))
        }
        try await socket.close()
        #expect(!thread.hasPrefix("courier-curl"), "decoded 8 KB on \(thread) beside an open WebSocket")
    }

    @Test("with two slots, 60 requests started at once all complete")
    func queueDrains() async throws {
        let client = APIClient(
            baseURL: faults, transport: CurlTransport(configuration: .init(maximumConcurrentTransfers: 2, loops: 1)))

        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<60 {
                group.addTask { try await client.send(.get("ok", as: Data.self)).count > 0 }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }

        #expect(answered == 60)
    }

    @Test("a request waiting for a slot fails at its own deadline; cancelled waiters free nothing twice")
    func waitingDeadline() async throws {
        let transport = CurlTransport(configuration: .init(maximumConcurrentTransfers: 1, loops: 1))
        let client = APIClient(baseURL: faults, transport: transport)
        var stalled = Request<Data>.get("no-response", as: Data.self)
        stalled.timeout = .seconds(20)
        var hurried = Request<Data>.get("ok", as: Data.self)
        hurried.timeout = .milliseconds(400)
        let blocker = Task { [stalled] in try await client.send(stalled) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = (0..<20).map { _ in Task { try await client.send(.get("ok", as: Data.self)) } }
        for task in cancelled { task.cancel() }
        let start = ContinuousClock.now

        let error = await #expect(throws: APIError.self) {
            try await client.send(hurried)
        }

        #expect(error?.kind == .transport(.deadlineExceeded))
        // Its own 400 ms, not the stalled call's 20 s (loose: this pass runs beside every other).
        #expect(ContinuousClock.now - start < .seconds(15))
        for task in cancelled { await #expect(throws: CancellationError.self) { try await task.value } }
        blocker.cancel()
        _ = await blocker.result
        let after = try await client.send(.get("ok", as: Data.self))
        #expect(!after.isEmpty)
    }
}
