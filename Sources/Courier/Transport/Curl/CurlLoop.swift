import CCourierCurl
import Foundation

/// The one thread that drives every transfer of a ``CurlTransport``: a libcurl multi handle,
/// pooled easy handles, a connection cache that keeps keep-alive connections across requests.
///
/// Callers hand transfers over with ``start(_:)`` and ``cancel(_:)``, which queue a command and wake
/// the loop (`curl_multi_wakeup`, the one libcurl call allowed from any thread). Everything else —
/// every libcurl call, every callback, the table of running transfers — happens on the loop thread.
///
/// `@unchecked Sendable`: `multi`, `running`, `pool` and `isShutDown` are touched only on the loop
/// thread (and in `init` before it starts); `inbox` is a ``Locked`` value.
final class CurlLoop: @unchecked Sendable {
    private enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
        case shutdown
    }

    /// An easy handle and the error buffer libcurl writes its message into.
    private struct Handle {
        let easy: OpaquePointer
        let errorBuffer: UnsafeMutablePointer<CChar>
    }

    private let multi: OpaquePointer
    private let idleTimeout: Duration
    /// Commands for the loop, and whether it has shut down (then nothing more is accepted).
    private let inbox = Locked<(commands: [Command], isClosed: Bool)>(([], false))
    private var running: [OpaquePointer: (transfer: CurlTransfer, handle: Handle)] = [:]
    private var pool: [Handle] = []
    private let poolLimit: Int

    /// Starts the loop's thread; `nil` when libcurl cannot make a multi handle.
    init?(configuration: CurlTransport.Configuration) {
        guard let multi = ccurl_multi_init() else { return nil }
        self.multi = multi
        idleTimeout = configuration.idleTimeout
        poolLimit = max(1, configuration.maximumConnections)
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_PIPELINING), CCURLPIPE_MULTIPLEX)
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAXCONNECTS), max(1, configuration.maximumConnections))
        ccurl_multi_setopt_long(
            multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), max(1, configuration.maximumConnectionsPerHost))
        let thread = Thread { [self] in run() }
        thread.name = "Courier libcurl loop"
        thread.start()
    }

    /// Adds the transfer on the loop thread (unless it finished first).
    func start(_ transfer: CurlTransfer) {
        if !submit(.start(transfer)) {
            transfer.finish(
                .failure(
                    APIError(.transport(.other), message: "the transport has shut down", request: transfer.request)))
        }
    }

    /// Removes the transfer on the loop thread, if it is running.
    func cancel(_ transfer: CurlTransfer) {
        _ = submit(.cancel(transfer))
    }

    /// Ends the loop: running transfers are cancelled, handles freed, the thread exits.
    func shutdown() {
        _ = submit(.shutdown)
    }

    /// Queues the command and wakes the loop; `false` once the loop has shut down. The wake-up
    /// happens under the lock, so it never reaches a multi handle that is being freed.
    private func submit(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return false }
            inbox.commands.append(command)
            ccurl_multi_wakeup(multi)
            return true
        }
    }

    // MARK: The loop thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let commands = inbox.withLock { inbox in
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return inbox.commands
            }
            for command in commands {
                switch command {
                case .start(let transfer): add(transfer)
                case .cancel(let transfer): remove(transfer, finishingWith: .failure(CancellationError()))
                case .shutdown:
                    tearDown()
                    return
                }
            }
            ccurl_multi_perform(multi, &stillRunning)
            collectFinished()
            let wait = expireIdleTransfers()
            ccurl_multi_poll(multi, wait, nil)
        }
    }

    private func add(_ transfer: CurlTransfer) {
        guard !transfer.isFinished else { return }
        let handle: Handle
        if let pooled = pool.popLast() {
            handle = pooled
        } else if let easy = ccurl_easy_init() {
            handle = Handle(
                easy: easy, errorBuffer: .allocate(capacity: Int(CCURL_ERROR_SIZE) + 1))
        } else {
            transfer.finish(
                .failure(
                    APIError(.transport(.other), message: "libcurl could not make a handle", request: transfer.request))
            )
            return
        }
        do {
            try transfer.configure(handle.easy, errorBuffer: handle.errorBuffer)
        } catch {
            transfer.releaseResources()
            recycle(handle)
            transfer.finish(.failure(error))
            return
        }
        let code = ccurl_multi_add_handle(multi, handle.easy)
        guard code == 0 else {
            transfer.releaseResources()
            recycle(handle)
            transfer.finish(
                .failure(
                    APIError(
                        .transport(.other), message: String(cString: ccurl_multi_strerror(code)),
                        request: transfer.request)))
            return
        }
        transfer.easy = handle.easy
        running[handle.easy] = (transfer, handle)
    }

    /// Takes a running transfer off libcurl and finishes it (a no-op once it finished otherwise).
    private func remove(_ transfer: CurlTransfer, finishingWith result: Result<HTTPResponse, any Error>) {
        guard let easy = transfer.easy, running[easy]?.transfer === transfer else { return }
        detach(easy)
        transfer.finish(result)
    }

    /// Removes the easy handle from the multi handle and returns it to the pool.
    private func detach(_ easy: OpaquePointer) {
        guard let entry = running.removeValue(forKey: easy) else { return }
        entry.transfer.easy = nil
        ccurl_multi_remove_handle(multi, easy)
        entry.transfer.releaseResources()
        recycle(entry.handle)
    }

    private func recycle(_ handle: Handle) {
        ccurl_easy_reset(handle.easy)
        if pool.count < poolLimit {
            pool.append(handle)
        } else {
            ccurl_easy_cleanup(handle.easy)
            handle.errorBuffer.deallocate()
        }
    }

    private func collectFinished() {
        var easy: OpaquePointer?
        var code: Int32 = 0
        while ccurl_multi_next_done(multi, &easy, &code) == 1 {
            guard let easy, let entry = running[easy] else { continue }
            // Copy the outcome out before the handle is removed and reset.
            let result = entry.transfer.result(code: code, errorBuffer: entry.handle.errorBuffer)
            detach(easy)
            entry.transfer.finish(result)
        }
    }

    /// Fails transfers silent for longer than the idle timeout; returns how long the loop may
    /// sleep before the next one could expire (at most one second).
    private func expireIdleTransfers() -> Int32 {
        guard !running.isEmpty else { return 1000 }
        let now = ContinuousClock.now
        var earliest = Duration.seconds(1)
        var expired: [OpaquePointer] = []
        for (easy, entry) in running {
            let left = entry.transfer.lastActivity + idleTimeout - now
            if left <= .zero {
                expired.append(easy)
            } else if left < earliest {
                earliest = left
            }
        }
        for easy in expired {
            guard let entry = running[easy] else { continue }
            detach(easy)
            entry.transfer.finish(.failure(entry.transfer.idleFailure()))
        }
        let (seconds, attoseconds) = earliest.components
        return Int32(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }

    private func tearDown() {
        let late = inbox.withLock { inbox in
            inbox.isClosed = true
            defer { inbox.commands.removeAll() }
            return inbox.commands
        }
        for case .start(let transfer) in late {
            transfer.finish(.failure(CancellationError()))
        }
        for (easy, entry) in running {
            ccurl_multi_remove_handle(multi, easy)
            entry.transfer.releaseResources()
            entry.transfer.finish(.failure(CancellationError()))
            ccurl_easy_cleanup(easy)
            entry.handle.errorBuffer.deallocate()
        }
        running.removeAll()
        for handle in pool {
            ccurl_easy_cleanup(handle.easy)
            handle.errorBuffer.deallocate()
        }
        pool.removeAll()
        ccurl_multi_cleanup(multi)
    }
}
