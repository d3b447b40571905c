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

    private typealias Waiter = UnsafeContinuation<Void, any Error>

    private struct State {
        var holders = 0
        var waiters = DeadlineQueue<Waiter>()
        /// Waiters with a ticket but not queued yet, and those of them already cancelled.
        var unqueued: Set<DeadlineQueue<Waiter>.Ticket> = []
        var cancelledEarly: Set<DeadlineQueue<Waiter>.Ticket> = []
        var isSweeping = false
    }

    /// How many may hold a slot at once (at least one).
    let limit: Int
    private let state = Locked(State())
    /// How often waiting deadlines are looked at.
    private static let sweepInterval = Duration.milliseconds(50)

    /// A gate that lets `limit` holders in at once (at least one).
    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a slot, waiting for one until `deadline` (for ever when `nil`) if all are held.
    ///
    /// - Returns: Whether the caller had to wait.
    /// - Throws: ``Expired`` past the deadline, `CancellationError` when the task is cancelled.
    @discardableResult
    package func enter(deadline: ContinuousClock.Instant?) async throws -> Bool {
        let admitted = state.withLock { state in
            guard state.holders < limit else { return false }
            state.holders += 1
            return true
        }
        if admitted { return false }
        try Task.checkCancellation()
        let ticket = state.withLock { state in
            let ticket = state.waiters.makeTicket()
            state.unqueued.insert(ticket)
            return ticket
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                queue(continuation, ticket: ticket, deadline: deadline)
            }
        } onCancel: {
            cancel(ticket)
        }
        return true
    }

    /// Gives a slot back: the longest waiter takes it over.
    package func leave() {
        let next: Waiter? = state.withLock { state in
            if let next = state.waiters.popFirst() { return next }
            state.holders -= 1
            return nil
        }
        next?.resume()
    }

    /// How many hold a slot and how many wait (for tests).
    package var counts: (holders: Int, waiters: Int) {
        state.withLock { ($0.holders, $0.waiters.count) }
    }

    private func queue(_ waiter: Waiter, ticket: DeadlineQueue<Waiter>.Ticket, deadline: ContinuousClock.Instant?) {
        enum Outcome {
            case queued(startSweep: Bool)
            case admitted, cancelled
        }
        let outcome: Outcome = state.withLock { state in
            state.unqueued.remove(ticket)
            if state.cancelledEarly.remove(ticket) != nil { return .cancelled }
            // A slot may have freed between the first look and now, with no one to hand it to.
            if state.holders < limit && state.waiters.isEmpty {
                state.holders += 1
                return .admitted
            }
            state.waiters.append(waiter, deadline: deadline, ticket: ticket)
            let startSweep = deadline != nil && !state.isSweeping
            if startSweep { state.isSweeping = true }
            return .queued(startSweep: startSweep)
        }
        switch outcome {
        case .queued(let startSweep):
            if startSweep { startSweeping() }
        case .admitted:
            waiter.resume()
        case .cancelled:
            waiter.resume(throwing: CancellationError())
        }
    }

    private func cancel(_ ticket: DeadlineQueue<Waiter>.Ticket) {
        let waiter: Waiter? = state.withLock { state in
            if let waiter = state.waiters.remove(ticket) { return waiter }
            if state.unqueued.contains(ticket) { state.cancelledEarly.insert(ticket) }
            return nil
        }
        waiter?.resume(throwing: CancellationError())
    }

    /// Fails waiters whose deadline passed, every `sweepInterval` while any with a deadline wait.
    private func startSweeping() {
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: Self.sweepInterval)
                let now = ContinuousClock.now
                let (expired, goesOn): ([Waiter], Bool) = state.withLock { state in
                    let expired = state.waiters.sweep(now: now)
                    state.isSweeping = state.waiters.nextDeadline() != nil
                    return (expired, state.isSweeping)
                }
                for waiter in expired { waiter.resume(throwing: Expired()) }
                if !goesOn { return }
            }
        }
    }
}
