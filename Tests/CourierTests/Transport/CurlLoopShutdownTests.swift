import Foundation
import Testing

@testable import Courier

/// What a loop does with the commands it reads in the same turn as its shutdown.
@Suite("CurlLoop shutdown", .enabled(if: CurlTransport.isAvailable))
struct CurlLoopShutdownTests {
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("a transfer queued behind the shutdown in the same turn still ends, cancelled")
    func transferBehindShutdown() async throws {
        // One loop: on a machine with more, the hold could take another loop than the transfer's.
        let configuration = CurlTransport.Configuration(loops: 1)
        let loops = try #require(CurlLoops(configuration: configuration))
        let hold = try await LoopHold(loops)
        let transfer = try Self.transfer(configuration)
        let outcome = try await Self.startBehindShutdown(transfer, on: loops.loops[0])
        await hold.release()

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
        let hold = try await LoopHold(loops)
        weak var released: CurlTransfer?
        let outcome: Locked<Result<CurlTransfer.Delivery, any Error>?>
        do {
            let transfer = try Self.transfer(configuration)
            released = transfer
            outcome = try await Self.startBehindShutdown(transfer, on: loops.loops[0])
        }
        await hold.release()

        let deadline = ContinuousClock.now + .seconds(10)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(outcome.withLock { $0 } != nil, "the transfer behind the shutdown ended")
        #expect(released == nil, "the stopped loop still holds the transfer queued behind its shutdown")
        withExtendedLifetime(loops) {}
    }

    /// A transfer to a port nothing listens on (it never gets that far).
    static func transfer(_ configuration: CurlTransport.Configuration) throws -> CurlTransfer {
        try CurlTransfer(
            request: HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:9/never"))), budget: .seconds(5),
            configuration: configuration, consumer: nil)
    }

    /// Shuts `loop` down and starts `transfer` on it right behind, from a task of its own; returns
    /// once both are queued, with where the transfer's outcome will be. The task is not awaited:
    /// before the fix, the transfer was dropped and the task never resumed.
    static func startBehindShutdown(
        _ transfer: CurlTransfer, on loop: CurlLoop
    ) async throws -> Locked<Result<CurlTransfer.Delivery, any Error>?> {
        let outcome = Locked<Result<CurlTransfer.Delivery, any Error>?>(nil)
        let queued = Locked(false)
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
        return outcome
    }
}
