import Foundation

/// One piece of asynchronous work whose result every member awaits, and that each member may leave
/// on its own: a member whose task is cancelled gets `CancellationError` at once, and the work
/// itself is cancelled only when its last member leaves (unless it was made to outlive them).
///
/// The work runs in the starting task's ``CallContext/shared`` context: never the starting call's
/// stream, file or upload meter.
///
/// Members ``enroll()`` first, then ``value(for:)``; enrolling and waiting are split so a
/// ``Coalescer`` can enroll under its own lock and never hand out work that has finished or is
/// being abandoned.
package final class SharedWork<Value: Sendable>: Sendable {
    private struct State {
        var members: Set<Int> = []
        var waiters: [Int: CheckedContinuation<Value, any Error>] = [:]
        var nextMember = 0
        var outcome: Result<Value, any Error>?
        var isAbandoned = false
        var task: Task<Void, Never>?
    }

    private let state = Locked(State())
    private let outlivesMembers: Bool

    /// Starts the work.
    ///
    /// - Parameters:
    ///   - outlivesMembers: Whether the work goes on when every member has left (a token refresh
    ///     must not be torn down half way); `false` cancels it.
    ///   - priority: The priority of the task that runs the work.
    ///   - operation: The work.
    package init(
        outlivesMembers: Bool = false,
        priority: TaskPriority? = nil,
        operation: @escaping @Sendable () async throws -> Value
    ) {
        self.outlivesMembers = outlivesMembers
        // Not the starting call's own state: a refresh started by a stream must not stream into it.
        let context = CallContext.current.shared
        let task = Task(priority: priority) { [self] in
            let outcome: Result<Value, any Error>
            do {
                outcome = .success(try await CallContext.$current.withValue(context) { try await operation() })
            } catch {
                outcome = .failure(error)
            }
            finish(with: outcome)
        }
        state.withLock { $0.task = task }
    }

    /// Joins the work; `nil` when it has finished or been abandoned by all its members.
    package func enroll() -> Int? {
        state.withLock { state in
            guard !state.isAbandoned, state.outcome == nil else { return nil }
            state.nextMember += 1
            state.members.insert(state.nextMember)
            return state.nextMember
        }
    }

    /// Waits for the work's result as the member `member`.
    ///
    /// - Throws: The work's error, or `CancellationError` as soon as the calling task is cancelled.
    package func value(for member: Int) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Value, any Error>? = state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    guard state.members.contains(member) else { return .failure(CancellationError()) }
                    state.waiters[member] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            leave(member)
        }
    }

    /// Whether the work has finished or been abandoned: no one can join it any more.
    package var isSettled: Bool {
        state.withLock { $0.outcome != nil || $0.isAbandoned }
    }

    private func leave(_ member: Int) {
        let (waiter, abandoned): (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) = state.withLock {
            state in
            guard state.members.remove(member) != nil else { return (nil, nil) }
            let waiter = state.waiters.removeValue(forKey: member)
            guard state.members.isEmpty, state.outcome == nil, !outlivesMembers else { return (waiter, nil) }
            state.isAbandoned = true
            return (waiter, state.task)
        }
        waiter?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    private func finish(with outcome: Result<Value, any Error>) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            state.task = nil
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
