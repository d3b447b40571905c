/// Keeps heavy work off an I/O loop's thread. A caller running on ``CurlTransport/executor`` (or
/// any ``LoopThreadTransport``'s) is resumed on the loop thread that finished its transfer;
/// decoding a large body there would hold up every other transfer of that loop, so such work moves
/// to the cooperative pool and the caller comes back to the loop afterwards.
enum LoopThreadHop {
    /// Bodies below this size are decoded where they arrived: moving costs two thread switches
    /// (tens of microseconds), more than decoding a few kilobytes.
    static let decodingThreshold = 4 * 1024

    /// Whether work on a body of `size` bytes should leave the calling thread: the body is at least
    /// ``decodingThreshold`` and the thread is one of `transport`'s loops.
    static func shouldMove(size: Int, transport: any HTTPTransport) -> Bool {
        guard size >= decodingThreshold else { return false }
        if let loops = transport as? any LoopThreadTransport, loops.isOnLoopThread { return true }
        // A transport that wraps a loop transport (a user's decorator) declares nothing, but its
        // caller may still be resumed on a loop thread.
        return loopThreadChecks.withLock { $0 }.contains { $0() }
    }

    /// Checks that tell whether the calling thread is a loop thread of any transport of a kind
    /// (CurlTransport registers one): heavy work leaves such a thread whoever the caller is.
    private static let loopThreadChecks = Locked<[@Sendable () -> Bool]>([])

    /// Adds a check that tells whether the calling thread is one of a transport kind's loops.
    package static func register(loopThreadCheck: @escaping @Sendable () -> Bool) {
        loopThreadChecks.withLock { $0.append(loopThreadCheck) }
    }

    /// Runs `work` on the cooperative pool (where task executor preferences exist; on the calling
    /// thread elsewhere). Callers ask ``shouldMove(size:)`` first, so the common case makes no
    /// async call at all.
    static func runOnPool<T>(_ work: () throws -> T) async throws -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            return try await withTaskExecutorPreference(globalConcurrentExecutor) { try work() }
        }
        return try work()
    }
}
