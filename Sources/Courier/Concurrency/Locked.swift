import Foundation

/// A value that is only ever read or written while its lock is held.
///
/// ## Courier's concurrency rule
///
/// Shared mutable state lives in a `Locked` value (one `struct State` per type, behind one lock),
/// or is confined to one thread (a CurlTransport loop's state, touched only on its thread). Not
/// actors, because most of that state is touched from threads that are not Swift tasks (libcurl's
/// callbacks on a loop thread, URLSession's delegate queue) and must answer at once, without a
/// suspension: a libcurl write callback has to say "paused" or "taken" before it returns, and an
/// actor hop would add a thread switch to every piece of every body. The rules that make locks safe:
/// - hold a lock for a few instructions: never across an `await`, never around I/O that can wait
///   on someone else (a file write to an already-open file is the one exception, on the consumer of
///   one exchange, where no one else waits for that lock);
/// - never call out while holding one: a continuation, a resume handler, a caller's closure, a
///   progress report are taken out of the state under the lock and called after it is released
///   (the state's methods return what to do; the owner does it);
/// - one lock per value, never two held at once, so there is no lock order to get wrong.
///
/// `Locked` is `Sendable` when its state is: the lock serialises access, and a `Sendable` state
/// can be handed out of ``withLock(_:)``. A state that holds a value that is not `Sendable` (a
/// decoder, a file handle's buffer) uses ``Confined``, which says in its own words why that is
/// safe.
package final class Locked<State> {
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

/// `@unchecked Sendable`: `state` is private and reached only through ``withLock(_:)``, which
/// holds `lock` for the whole access, so no two threads touch it at once; and what leaves it is
/// `Sendable`.
extension Locked: @unchecked Sendable where State: Sendable {}

/// A value that is not `Sendable` but never leaves the one place that uses it: kept in a
/// ``Locked`` state (so only the lock's holder touches it) and never returned from it.
///
/// `@unchecked Sendable`: the owner promises the value is only used while the lock of the state
/// that holds it is held, and never handed out; each use says so where it wraps the value.
package struct Confined<Value>: @unchecked Sendable {
    /// The value, for the lock's holder only.
    package var value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }
}
