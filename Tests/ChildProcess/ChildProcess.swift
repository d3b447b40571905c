import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process for the tests, started with `posix_spawn`.
///
/// The tests use it instead of Foundation's `Process`, whose `run()` on Linux over-reads the
/// entries of `/proc/self/fd` and crashes now and then (a bad pointer dereference in `memmove`) in
/// a suite that starts many processes: swift-corelibs-foundation's `findMaximumOpenFromProcSelfFD`,
/// fixed upstream by pull request 5472, after Swift 6.3.1. It crashed two `scripts/test` runs in a
/// row here once the suite started more servers.
///
/// The child gets standard input from `/dev/null`, standard output and error as asked, no other
/// descriptor of ours (everything from 3 up is closed in it, as `Process` does), no blocked signals,
/// and SIGTERM, SIGINT and SIGPIPE at their defaults.
///
/// `@unchecked Sendable`: the exit status, the only mutable state, is read and written under `lock`.
package final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's outputs goes.
    package enum Output {
        /// Discarded (`/dev/null`).
        case discarded
        /// Into a pipe whose read end is ``ChildProcess/output`` or ``ChildProcess/errorOutput``.
        case piped
    }

    /// The child's process identifier.
    package let processIdentifier: Int32
    /// The read end of the child's standard output, when it is piped.
    package let output: FileHandle?
    /// The read end of the child's standard error, when it is piped.
    package let errorOutput: FileHandle?
    private let lock = NSLock()
    private var waitStatus: Int32?

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`, and
    /// `environment` (this process's when `nil`).
    ///
    /// - Throws: `POSIXError` when the process cannot be started.
    package init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        output: Output = .discarded, errorOutput: Output = .discarded
    ) throws {
        var actions = Self.emptyActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var readEnds: [Int32?] = []
        var writeEnds: [Int32] = []
        for (target, choice) in [(Int32(1), output), (Int32(2), errorOutput)] {
            switch choice {
            case .discarded:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                readEnds.append(nil)
            case .piped:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw Self.error() }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                // dup2 gives the child a copy without close-on-exec; ours keep it.
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
                readEnds.append(ends[0])
                writeEnds.append(ends[1])
            }
        }
        Self.closeFrom3(&actions)
        var attributes = Self.emptyAttributes()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") }
        let envp = variables + [nil]
        defer { for variable in variables { free(variable) } }
        var pid: pid_t = 0
        let code = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        for end in writeEnds { close(end) }
        guard code == 0 else {
            for case let end? in readEnds { close(end) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL)
        }
        processIdentifier = pid
        self.output = readEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.errorOutput = readEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    /// Whether the child has not ended yet (an ended child is reaped here).
    package var isRunning: Bool {
        lock.withLock {
            guard waitStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            if result == processIdentifier { waitStatus = status }
            return result == 0
        }
    }

    /// Waits for the child to end (blocking the calling thread) and answers how it did.
    @discardableResult
    package func wait() -> Termination {
        if let status = lock.withLock({ waitStatus }) { return Termination(status) }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0, errno == EINTR {}
        lock.withLock { waitStatus = status }
        return Termination(status)
    }

    /// Sends the child SIGTERM, unless it has ended.
    package func terminate() {
        if isRunning { kill(processIdentifier, SIGTERM) }
    }

    /// How a child ended.
    package struct Termination: Sendable, Equatable {
        /// The exit status, when it exited.
        package let status: Int32?
        /// The signal that ended it, when one did.
        package let signal: Int32?

        init(_ raw: Int32) {
            let signal = raw & 0x7f
            self.signal = signal == 0 ? nil : signal
            status = signal == 0 ? (raw >> 8) & 0xff : nil
        }
    }

    /// Adds "close every descriptor from 3 up" to `actions` where the C library has it
    /// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34); elsewhere the pipes' close-on-exec
    /// has to do.
    private static func closeFrom3(_ actions: inout SpawnActions) {
        #if os(Linux)
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<SpawnActions>, Int32) -> Int32
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        #endif
    }

    #if canImport(Darwin)
        private typealias SpawnActions = posix_spawn_file_actions_t?
        private static func emptyActions() -> SpawnActions { nil }
        private static func emptyAttributes() -> posix_spawnattr_t? { nil }
    #else
        private typealias SpawnActions = posix_spawn_file_actions_t
        private static func emptyActions() -> SpawnActions { posix_spawn_file_actions_t() }
        private static func emptyAttributes() -> posix_spawnattr_t { posix_spawnattr_t() }
    #endif

    private static func error() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
    }
}
