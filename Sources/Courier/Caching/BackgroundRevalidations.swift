import Foundation

/// The background revalidations of one cache middleware (`stale-while-revalidate`, RFC 5861 §3):
/// at most one per key, at most `limit` at once, each a detached task (none of the caller's
/// task-local values), all cancelled when the middleware (and so the client holding it) goes away.
final class BackgroundRevalidations: Sendable {
    private struct State {
        var tasks: [String: (id: UInt64, task: Task<Void, Never>)] = [:]
        var nextID: UInt64 = 0
        var started = 0
    }

    /// The most revalidations in flight at once.
    let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    deinit {
        cancelAll()
    }

    /// Starts `work` for `key` unless one is in flight for it or `limit` are; `false` when not started.
    @discardableResult
    func start(key: String, _ work: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { state in
            guard state.tasks[key] == nil, state.tasks.count < limit else { return false }
            let id = state.nextID
            state.nextID += 1
            state.started += 1
            // Detached: the caller's task-local values (its exchange record, a streaming consumer,
            // a redirect observer) belong to a call that is over; it must not see them.
            let task = Task.detached { [weak self] in
                await work()
                self?.finish(key: key, id: id)
            }
            state.tasks[key] = (id, task)
            return true
        }
    }

    private func finish(key: String, id: UInt64) {
        state.withLock { state in
            if state.tasks[key]?.id == id { state.tasks[key] = nil }
        }
    }

    /// The number of revalidations in flight.
    var count: Int { state.withLock { $0.tasks.count } }

    /// The number ever started.
    var startedCount: Int { state.withLock { $0.started } }

    /// Cancels every revalidation in flight.
    func cancelAll() {
        let tasks = state.withLock { state in
            defer { state.tasks = [:] }
            return state.tasks.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// Waits until the revalidations in flight now have ended.
    func waitForAll() async {
        let tasks = state.withLock { $0.tasks.values.map(\.task) }
        for task in tasks { await task.value }
    }
}
