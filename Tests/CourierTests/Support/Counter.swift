import Courier

/// A counter shared between tasks.
final class Counter: Sendable {
    private let value = Locked(0)

    @discardableResult
    func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }

    var count: Int { value.withLock { $0 } }
}
