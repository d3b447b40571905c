import Foundation

/// Runs at most one piece of work per key at a time: a caller that asks for a key whose work is
/// already running waits for that work instead of starting its own.
///
/// Each caller may cancel on its own; the work is cancelled only when its last caller leaves.
/// Finished work is forgotten, so the next call for the key starts afresh.
package final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Locked([Key: SharedWork<Value>]())
    private let priority: TaskPriority?

    /// Creates an empty coalescer whose work runs at `priority`.
    package init(priority: TaskPriority? = nil) {
        self.priority = priority
    }

    /// The number of keys whose work is running.
    package var count: Int {
        running.withLock { $0.count }
    }

    /// The result of the work for `key`: the running work's if there is one, otherwise `operation`'s,
    /// started now.
    ///
    /// - Throws: The work's error, or `CancellationError` when the calling task is cancelled.
    package func value(
        for key: Key,
        operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let (work, member) = running.withLock { running -> (SharedWork<Value>, Int) in
            if let work = running[key], let member = work.enroll() {
                return (work, member)
            }
            let work = SharedWork(priority: priority, operation: operation)
            running[key] = work
            // A fresh work always accepts its first member.
            return (work, work.enroll() ?? 0)
        }
        defer { forget(work, for: key) }
        return try await work.value(for: member)
    }

    /// Removes `work` from the map once no one can join it.
    private func forget(_ work: SharedWork<Value>, for key: Key) {
        running.withLock { running in
            if let current = running[key], current === work, current.isSettled {
                running[key] = nil
            }
        }
    }
}
