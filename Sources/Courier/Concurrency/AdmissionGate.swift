import Foundation

/// At most `limit` holders at once; the others wait in arrival order, each until a slot frees, its
/// deadline passes or its task is cancelled.
///
/// A waiter costs one suspended continuation and an entry here, so thousands of waiting requests
/// hold little more than their tasks: the frames of everything behind the gate (middlewares,
/// the transport, its handles) exist only for the holders.
package final class AdmissionGate: Sendable {
    /// Thrown to a waiter whose deadline passed.
    struct Expired: Error {}

    private struct Waiter {
        let deadline: ContinuousClock.Instant
        let continuation: UnsafeContinuation<Void, any Error>
    }

    private struct State {
        var holders = 0
        var waiters: [Int: Waiter] = [:]
        /// Waiter numbers in arrival order from `head` on; numbers no longer in `waiters` are skipped.
        var order: [Int] = []
        var head = 0
        var nextWaiter = 0
        /// Waiters numbered but not queued yet, and those of them already cancelled.
        var unqueued: Set<Int> = []
        var cancelledEarly: Set<Int> = []
        var isSweeping = false
    }

    /// How many may hold a slot at once (at least one).
    let limit: Int
    private let state = Locked(State())
    /// How often waiting deadlines are looked at.
    private static let sweepInterval = Duration.milliseconds(50)

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a slot, waiting for one until `deadline` if all are held.
    ///
    /// - Returns: Whether the caller had to wait.
    /// - Throws: ``Expired`` past the deadline, `CancellationError` when the task is cancelled.
    func enter(deadline: ContinuousClock.Instant) async throws -> Bool {
        let admitted = state.withLock { state in
            guard state.holders < limit else { return false }
            state.holders += 1
            return true
        }
        if admitted { return false }
        try Task.checkCancellation()
        let number = state.withLock { state in
            state.nextWaiter += 1
            state.unqueued.insert(state.nextWaiter)
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                queue(number, Waiter(deadline: deadline, continuation: continuation))
            }
        } onCancel: {
            cancel(number)
        }
        return true
    }

    /// Gives a slot back: the longest waiter takes it over.
    func leave() {
        let next: Waiter? = state.withLock { state in
            while state.head < state.order.count {
                let number = state.order[state.head]
                state.head += 1
                if let waiter = state.waiters.removeValue(forKey: number) {
                    compact(&state)
                    return waiter
                }
            }
            state.order.removeAll(keepingCapacity: true)
            state.head = 0
            state.holders -= 1
            return nil
        }
        next?.continuation.resume()
    }

    /// How many hold a slot and how many wait (for tests).
    package var counts: (holders: Int, waiters: Int) {
        state.withLock { ($0.holders, $0.waiters.count) }
    }

    private func queue(_ number: Int, _ waiter: Waiter) {
        enum Outcome {
            case queued(startSweep: Bool)
            case admitted, cancelled
        }
        let outcome: Outcome = state.withLock { state in
            state.unqueued.remove(number)
            if state.cancelledEarly.remove(number) != nil { return .cancelled }
            // A slot may have freed between the first look and now, with no one to hand it to.
            if state.holders < limit && state.waiters.isEmpty {
                state.holders += 1
                return .admitted
            }
            state.waiters[number] = waiter
            state.order.append(number)
            let startSweep = !state.isSweeping
            state.isSweeping = true
            return .queued(startSweep: startSweep)
        }
        switch outcome {
        case .queued(let startSweep):
            if startSweep { startSweeping() }
        case .admitted:
            waiter.continuation.resume()
        case .cancelled:
            waiter.continuation.resume(throwing: CancellationError())
        }
    }

    private func cancel(_ number: Int) {
        let waiter: Waiter? = state.withLock { state in
            if let waiter = state.waiters.removeValue(forKey: number) { return waiter }
            if state.unqueued.contains(number) { state.cancelledEarly.insert(number) }
            return nil
        }
        waiter?.continuation.resume(throwing: CancellationError())
    }

    /// Fails waiters whose deadline passed, every `sweepInterval` while any wait.
    private func startSweeping() {
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: Self.sweepInterval)
                let now = ContinuousClock.now
                let (expired, goesOn): ([Waiter], Bool) = state.withLock { state in
                    let numbers = state.waiters.filter { $0.value.deadline <= now }.map(\.key)
                    let expired = numbers.compactMap { state.waiters.removeValue(forKey: $0) }
                    state.isSweeping = !state.waiters.isEmpty
                    return (expired, state.isSweeping)
                }
                for waiter in expired { waiter.continuation.resume(throwing: Expired()) }
                if !goesOn { return }
            }
        }
    }

    /// Drops the handed-out front of `order` once it is most of the array.
    private func compact(_ state: inout State) {
        guard state.head > 1024, state.head * 2 > state.order.count else { return }
        state.order.removeFirst(state.head)
        state.head = 0
    }
}
