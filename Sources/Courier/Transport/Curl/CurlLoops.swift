import CCourierCurl
import Foundation

/// A ``CurlTransport``'s loops: which one takes the next transfer, and the task executor that runs
/// callers' code on them.
///
/// A request made on one of the loop threads (a caller running on the transport's executor) stays
/// on that loop, so the hand-over is a queued command the running loop reads at once, with no
/// wake-up; other requests go to the loops in turn. Jobs follow the same rule: a task resumed by a
/// loop runs its next part on that loop.
final class CurlLoops: Sendable {
    let loops: [CurlLoop]
    private let turn = Locked(0)

    /// Starts `count` loops, each with its share of the configuration's limits; `nil` when libcurl
    /// cannot make a multi handle.
    init?(configuration: CurlTransport.Configuration) {
        let count = max(1, configuration.loops)
        var loops: [CurlLoop] = []
        for index in 0..<count {
            let limits = CurlLoop.Limits(
                transfers: Self.share(of: configuration.maximumConcurrentTransfers, for: index, among: count),
                connectionsPerHost: Self.share(of: configuration.maximumConnectionsPerHost, for: index, among: count),
                connections: Self.share(of: configuration.maximumConnections, for: index, among: count))
            let name = count == 1 ? "courier-curl" : "courier-curl-\(index + 1)"
            guard let loop = CurlLoop(configuration: configuration, limits: limits, name: name) else {
                for loop in loops { loop.shutdown() }
                return nil
            }
            loops.append(loop)
        }
        self.loops = loops
    }

    /// Loop `index`'s part of a limit shared by `count` loops: the parts add up to `total` (each at
    /// least one).
    static func share(of total: Int, for index: Int, among count: Int) -> Int {
        max(1, total / count + (index < total % count ? 1 : 0))
    }

    /// The loop for the next transfer: the calling thread's own, else the next in turn.
    func next() -> CurlLoop {
        if loops.count == 1 { return loops[0] }
        if let current = current() { return current }
        let index = turn.withLock { turn in
            turn = (turn + 1) % loops.count
            return turn
        }
        return loops[index]
    }

    /// Whether one of these loops' threads is calling.
    var isCallingFromLoop: Bool { current() != nil }

    /// The loop whose thread is calling, if any.
    private func current() -> CurlLoop? {
        guard ccourier_current_loop() != nil else { return nil }
        return loops.first { $0.isCurrent }
    }

    func shutdown() {
        for loop in loops { loop.shutdown() }
    }

}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension CurlLoops: TaskExecutor {
    /// Runs the job on the calling loop's thread, or on the next loop in turn.
    func enqueue(_ job: consuming ExecutorJob) {
        next().enqueue(UnownedJob(job), as: asUnownedTaskExecutor())
    }
}
