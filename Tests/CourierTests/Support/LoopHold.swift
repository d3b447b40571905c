import Foundation

@testable import Courier

/// A job that keeps a CurlTransport loop's thread until released: the commands queued meanwhile wait
/// in the loop's inbox and are carried out in one turn.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
struct LoopHold {
    private let state = Locked((started: false, released: false))
    private let job: Task<Void, Never>

    /// Starts the job on `loops` (their only loop, or the next in turn) and returns once it runs.
    init(_ loops: CurlLoops) async throws {
        let state = state
        job = Task(executorPreference: loops) {
            state.withLock { $0.started = true }
            while !state.withLock({ $0.released }) { _ = usleep(1_000) }
        }
        while !state.withLock({ $0.started }) { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Lets the loop go on, and waits until the job has returned.
    func release() async {
        state.withLock { $0.released = true }
        await job.value
    }
}
