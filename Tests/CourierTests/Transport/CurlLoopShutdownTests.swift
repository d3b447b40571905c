import Foundation
import Testing

@testable import Courier

/// What a loop does with the commands it reads in the same turn as its shutdown.
@Suite("CurlLoop shutdown", .enabled(if: CurlTransport.isAvailable))
struct CurlLoopShutdownTests {
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("a transfer queued behind the shutdown in the same turn still ends, cancelled")
    func transferBehindShutdown() async throws {
        let configuration = CurlTransport.Configuration()
        let loops = try #require(CurlLoops(configuration: configuration))
        let loop = loops.next()
        // Hold the loop thread so that the shutdown and the transfer wait in one batch.
        let held = Locked((started: false, released: false))
        let blocker = Task(executorPreference: loops) {
            held.withLock { $0.started = true }
            while !held.withLock({ $0.released }) { _ = usleep(1_000) }
        }
        while !held.withLock({ $0.started }) { try await Task.sleep(for: .milliseconds(1)) }

        let transfer = try CurlTransfer(
            request: HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:9/never"))), budget: .seconds(5),
            configuration: configuration, consumer: nil)
        let outcome = Locked<Result<CurlTransfer.Delivery, any Error>?>(nil)
        let queued = Locked(false)
        // Not awaited: before the fix, the transfer was dropped and this task never resumed.
        Task {
            let result = await Result {
                try await withUnsafeThrowingContinuation { continuation in
                    if transfer.begin(continuation) {
                        loop.shutdown()
                        loop.start(transfer)
                    }
                    queued.withLock { $0 = true }
                }
            }
            outcome.withLock { $0 = result }
        }
        while !queued.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        held.withLock { $0.released = true }
        await blocker.value

        let deadline = ContinuousClock.now + .seconds(10)
        while outcome.withLock({ $0 == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let result = try #require(outcome.withLock { $0 }, "the transfer queued behind the shutdown never ended")
        #expect(result.failure is CancellationError)
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("the stopped loop keeps nothing that was queued behind its shutdown")
    func nothingKeptAfterShutdown() async throws {
        let configuration = CurlTransport.Configuration(loops: 1)
        let loops = try #require(CurlLoops(configuration: configuration))
        let loop = loops.loops[0]
        let held = Locked((started: false, released: false))
        let blocker = Task(executorPreference: loops) {
            held.withLock { $0.started = true }
            while !held.withLock({ $0.released }) { _ = usleep(1_000) }
        }
        while !held.withLock({ $0.started }) { try await Task.sleep(for: .milliseconds(1)) }

        weak var released: CurlTransfer?
        let ended = Locked(false)
        let queued = Locked(false)
        do {
            let transfer = try CurlTransfer(
                request: HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:9/never"))),
                budget: .seconds(5), configuration: configuration, consumer: nil)
            released = transfer
            Task {
                _ = await Result {
                    try await withUnsafeThrowingContinuation { continuation in
                        if transfer.begin(continuation) {
                            loop.shutdown()
                            loop.start(transfer)
                        }
                        queued.withLock { $0 = true }
                    }
                }
                ended.withLock { $0 = true }
            }
        }
        while !queued.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        held.withLock { $0.released = true }
        await blocker.value

        let deadline = ContinuousClock.now + .seconds(10)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(ended.withLock { $0 }, "the transfer behind the shutdown ended")
        #expect(released == nil, "the stopped loop still holds the transfer queued behind its shutdown")
        withExtendedLifetime(loops) {}
    }
}
