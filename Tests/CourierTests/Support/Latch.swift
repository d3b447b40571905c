import Courier

/// A one-way latch a stubbed server or provider waits behind until the test opens it.
///
/// A test that must act while a call is in flight (cancel it, start another) holds the call behind a latch instead of
/// a fixed delay, which a loaded machine can outlast before the test gets to act.
final class Latch: Sendable {
    private let isOpen = Locked(false)

    func open() { isOpen.withLock { $0 = true } }

    /// Waits until the latch opens, at most `limit`; throws if cancelled.
    func wait(atMost limit: Duration = .seconds(60)) async throws {
        _ = try await eventually(within: limit) { isOpen.withLock { $0 } }
    }
}
