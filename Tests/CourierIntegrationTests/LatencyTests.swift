import Courier
import Foundation
import Testing

/// The wall-clock latency assertions against httpbin; `scripts/test` runs them on their own, one
/// at a time, after the rest (see `CourierTests.LatencyTests`).
@Suite(
    "Latency against httpbin", .serialized,
    .enabled(if: LocalServers.httpbin != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct LatencyTests {

    @Test("/delay/5 with a 0.5 s deadline fails as timed out within 1.5 s", arguments: TransportKind.allCases)
    func deadline(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        let start = ContinuousClock.now

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(path: "delay/5", timeout: .milliseconds(500), as: Data.self))
            }
        )

        #expect(error.kind == .transport(.deadlineExceeded))
        #expect(ContinuousClock.now - start < .milliseconds(1500))
    }

    @Test("cancelling /delay/10 surfaces CancellationError within 100 ms", arguments: TransportKind.allCases)
    func cancellation(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        let task = Task { try await client.send(.get("delay/10", as: Data.self)) }
        try await Task.sleep(for: .milliseconds(300))

        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .milliseconds(100))
    }

    @Test("a dripping body cannot outlive the deadline", arguments: TransportKind.allCases)
    func drippingBody(transport: TransportKind) async throws {
        let client = transport.client(LocalServers.httpbin)
        let start = ContinuousClock.now
        let query: Query = ["duration": "5", "numbytes": "10"]

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(path: "drip", query: query, timeout: .milliseconds(1500), as: Data.self))
            }
        )

        #expect(error.kind == .transport(.deadlineExceeded))
        #expect(ContinuousClock.now - start < .milliseconds(2500))
    }
}

@Suite(
    "CurlTransport idle timeout",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct CurlLatencyTests {
    @Test("a stalled body fails as timed out after the 0.3 s idle timeout, well before the deadline")
    func idle() async throws {
        let transport = CurlTransport(configuration: .init(idleTimeout: .milliseconds(300)))
        let client = APIClient(baseURL: LocalServers.faults ?? URL(string: "http://127.0.0.1:9")!, transport: transport)
        let start = ContinuousClock.now

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(path: "stall", timeout: .seconds(5), as: Data.self))
            })

        #expect(error.kind == .transport(.timedOut))
        #expect(ContinuousClock.now - start < .milliseconds(1000))
    }
}

/// A deadline holds wherever the request waits: libcurl (7.88) does not apply its own timeout while a
/// transfer waits for a connection to a host at its connection limit, so the loop does.
@Suite(
    "CurlTransport deadlines while waiting for a connection", .serialized,
    .enabled(if: LocalServers.files != nil && LocalServers.httpbin != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(2))
)
struct ConnectionWaitDeadlineTests {
    /// Four connections per host, one loop: the fifth request to a host waits in libcurl's queue.
    private static func transport() -> CurlTransport {
        CurlTransport(configuration: .init(maximumConnectionsPerHost: 4, loops: 1))
    }

    @Test("behind streams that hold every connection to the host, a 3 s call fails at 3 s as deadlineExceeded")
    func behindHeldStreams() async throws {
        let server = try #require(LocalServers.files)
        let client = APIClient(baseURL: server, transport: Self.transport())
        var held: [ResponseStream] = []
        for _ in 0..<4 {
            // Never read: each stream keeps its connection, paused, for as long as it lives.
            held.append(try await client.stream(Request<Data>(path: "chunked/1073741824", query: ["pace": "0.5"])))
        }
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            try await client.send(Request(path: "peer", timeout: .seconds(3), as: Data.self))
        }
        let elapsed = ContinuousClock.now - start
        // Before: "no byte moved for 60 seconds" (the idle rule) after 60 s.
        #expect(error?.kind == .transport(.deadlineExceeded), "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(2900) && elapsed < .milliseconds(4500), "\(elapsed)")
        for stream in held { stream.cancel() }
    }

    @Test("behind slow calls that hold every connection to the host, a 3 s call fails at 3 s as deadlineExceeded")
    func behindSlowCalls() async throws {
        let server = try #require(LocalServers.httpbin)
        let client = APIClient(baseURL: server, transport: Self.transport())
        let slow = (0..<4).map { _ in
            Task { try await client.send(Request(path: "delay/8", timeout: .seconds(30), as: Data.self)) }
        }
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            try await client.send(Request(path: "get", timeout: .seconds(3), as: Data.self))
        }
        let elapsed = ContinuousClock.now - start
        // Before: it failed only once a slow call freed its connection (8 s here; 29.7 s behind 16).
        #expect(error?.kind == .transport(.deadlineExceeded), "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(2900) && elapsed < .milliseconds(4500), "\(elapsed)")
        for call in slow { call.cancel() }
    }
}
