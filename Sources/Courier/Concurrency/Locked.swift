import Foundation

/// A value that is only ever read or written while its lock is held.
///
/// `@unchecked Sendable`: `state` is private and reached only through ``withLock(_:)``, which holds
/// `lock` for the whole access, so no two threads touch it at once.
package final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    /// Wraps an initial value.
    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
