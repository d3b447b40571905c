/// Polls `condition` every 5 ms until it holds or `limit` has passed, and answers whether it held.
///
/// A test that waits for something another task does (a file appears, a call arrives) polls with this instead of
/// sleeping a fixed time, which is too short on a loaded machine.
func eventually(within limit: Duration = .seconds(60), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: limit)
    while clock.now < end {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
