import Courier
import CourierImages
import Foundation
import Testing

/// CurlTransport's event loop runs no user code, and a deadline that passed while the loop was held
/// up is never reported as a success. Wall-clock assertions: `scripts/test` runs this suite in its
/// serial latency pass (its name ends in `LatencyTests`).
@Suite(
    "The loop thread and user code", .serialized,
    .enabled(if: LocalServers.faults != nil && LocalServers.files != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct LoopBlockingLatencyTests {
    @Test("an image-loader progress callback that sleeps 2 s does not hold up another request's 0.5 s deadline")
    func slowProgressCallback() async throws {
        let transport = CurlTransport()
        let files = try #require(LocalServers.files)
        let loader = try ImageLoader(client: APIClient(baseURL: files, transport: transport))
        let callbackStarted = Locked(false)
        let image = Task {
            _ = try? await loader.image(for: files.appending(path: "static/1mb.bin")) { _ in
                // The first call sleeps 2 s; where it runs, nothing else may wait for it.
                let isFirst = callbackStarted.withLock { started in
                    defer { started = true }
                    return !started
                }
                if isFirst { Thread.sleep(forTimeInterval: 2) }
            }
        }
        defer { image.cancel() }
        let waitStart = ContinuousClock.now
        while !callbackStarted.withLock({ $0 }), ContinuousClock.now - waitStart < .seconds(5) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(callbackStarted.withLock { $0 }, "the progress callback never ran")
        let client = APIClient(baseURL: try #require(LocalServers.faults), transport: transport)

        let start = ContinuousClock.now
        let body = try await client.send(Request(path: "ok", timeout: .milliseconds(500), as: Data.self))

        #expect(!body.isEmpty)
        #expect(ContinuousClock.now - start < .milliseconds(500))
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("a response that completes while the loop is blocked past the deadline fails as deadlineExceeded")
    func blockedLoop() async throws {
        let transport = CurlTransport()
        let executor = try #require(transport.executor)
        let client = APIClient(baseURL: try #require(LocalServers.faults), transport: transport)
        let blocked = Locked<(start: ContinuousClock.Instant?, end: ContinuousClock.Instant?)>((nil, nil))
        // Blocking on purpose: the loop thread is held for a second, and the request is handed
        // over meanwhile.
        let blocker = Task(executorPreference: executor) {
            blocked.withLock { $0.start = .now }
            _ = usleep(1_000_000)
            blocked.withLock { $0.end = .now }
        }
        while blocked.withLock({ $0.start == nil }) { try await Task.sleep(for: .milliseconds(5)) }
        let sent = ContinuousClock.now
        let result = await Task {
            try await client.send(Request(path: "ok", timeout: .milliseconds(300), as: Data.self))
        }.result
        await blocker.value

        let end = try #require(blocked.withLock { $0.end })
        #expect(end - sent > .milliseconds(400), "the request was not sent while the loop was blocked")
        let error = try #require(result.failure as? APIError, "a response seen after its deadline was a success")
        #expect(error.kind == .transport(.deadlineExceeded))
    }

    @Test("a cancelled request frees its connection slot: with one connection per host the next request is served")
    func cancelledTransferStops() async throws {
        let faults = try #require(LocalServers.faults)
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))
        let client = APIClient(baseURL: faults, transport: transport)

        let silent = Task { try await client.send(.get("no-response", as: Data.self)) }
        try await Task.sleep(for: .milliseconds(200))
        silent.cancel()
        await #expect(throws: CancellationError.self) { try await silent.value }

        let start = ContinuousClock.now
        let body = try await client.send(Request(path: "ok", timeout: .seconds(5), as: Data.self))

        #expect(!body.isEmpty)
        #expect(ContinuousClock.now - start < .seconds(1), "the cancelled transfer kept the host's only connection")
    }
}
