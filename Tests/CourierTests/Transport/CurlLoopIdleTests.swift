import Foundation
import Testing

@testable import Courier

/// When a loop counts as idle: what decides whether a caller's body is decoded on the loop thread.
@Suite("CurlLoop idleness", .enabled(if: CurlTransport.isAvailable))
struct CurlLoopIdleTests {
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("a job with a command behind it in the same turn does not see its loop idle; alone, it does")
    func commandsLeftInTurn() async throws {
        let loops = try #require(CurlLoops(configuration: CurlTransport.Configuration(loops: 1)))
        defer { loops.shutdown() }
        let loop = loops.loops[0]

        #expect(await Task(executorPreference: loops) { loop.isIdle }.value, "a job alone on its loop")

        // Hold the loop thread so that the next two jobs wait in one batch: the loop takes both
        // out of its inbox at once, so only its count of the turn's commands left sees the second.
        let hold = try await LoopHold(loops)
        let first = Task(executorPreference: loops) { loop.isIdle }
        let second = Task(executorPreference: loops) { loop.isIdle }
        await hold.release()

        #expect(await first.value == false, "the second job waits behind the first in the same turn")
        #expect(await second.value, "nothing is left behind the last job of the turn")
    }
}
