/// Keeps heavy work off an I/O loop's thread. A caller running on ``CurlTransport/executor`` (or
/// any ``LoopThreadTransport``'s) is resumed on the loop thread that finished its transfer;
/// decoding a large body there would hold up every other transfer of that loop, so such work moves
/// to the cooperative pool and the caller comes back to the loop afterwards.
enum LoopThreadHop {
    /// Bodies below this size are decoded where they arrived: moving costs two thread switches
    /// (tens of microseconds), more than decoding a few kilobytes.
    static let decodingThreshold = 4 * 1024

    /// Bodies up to this size are decoded on a loop thread that has nothing else to do (no other
    /// transfer, WebSocket or command waiting): the bytes are warm there. A request made meanwhile
    /// waits for the decode: 16 KiB of JSON decodes in 0.2–0.5 ms as strings, dates or
    /// floating-point numbers, in 2–5 ms in the worst shapes measured (thousands of small integers
    /// or tiny objects, arrays nested 200 deep); 64 KiB took up to 18 ms, too long to hold a loop.
    static let idleLoopDecodingLimit = 16 * 1024

    /// What a registered check knows of the calling thread.
    package enum CallingThread {
        /// Not a loop thread of the check's transport kind.
        case other
        /// A loop thread with nothing else to do.
        case idleLoop
        /// A loop thread with other work in hand.
        case busyLoop
    }

    /// Whether work on a body of `size` bytes should leave the calling thread: the body is at least
    /// ``decodingThreshold`` and the thread is one of `transport`'s loops, busy with other work or
    /// the body larger than ``idleLoopDecodingLimit``.
    static func shouldMove(size: Int, transport: any HTTPTransport) -> Bool {
        guard size >= decodingThreshold else { return false }
        // A transport that wraps a loop transport (a user's decorator) declares nothing, but its
        // caller may still be resumed on a loop thread: the registered checks see every loop.
        for check in loopThreadChecks.withLock({ $0 }) {
            switch check() {
            case .other: continue
            case .idleLoop: return size > idleLoopDecodingLimit
            case .busyLoop: return true
            }
        }
        // A loop transport of another kind: its loop may be busy.
        if let loops = transport as? any LoopThreadTransport, loops.isOnLoopThread { return true }
        return false
    }

    /// Checks that tell whether the calling thread is a loop thread of any transport of a kind
    /// (CurlTransport registers one), and whether that loop is idle: heavy work leaves a busy loop's
    /// thread whoever the caller is.
    private static let loopThreadChecks = Locked<[@Sendable () -> CallingThread]>([])

    /// Adds a check that tells whether the calling thread is one of a transport kind's loops.
    package static func register(loopThreadCheck: @escaping @Sendable () -> CallingThread) {
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
