import CCourierCurl
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one thread that drives every transfer of a ``CurlTransport``: a libcurl multi handle,
/// pooled easy handles, a connection cache that keeps keep-alive connections across requests.
///
/// Callers hand transfers over with ``start(_:)``, ``cancel(_:)`` and ``resume(_:)`` (a stream's
/// reader caught up), and jobs with `enqueue` (the task executor), each of which queues a command
/// and wakes the loop (`curl_multi_wakeup`, the one libcurl call allowed from any thread).
/// Everything else — every libcurl call, every callback, the table of running transfers, each
/// transfer's idle clock — happens on the loop thread.
///
/// `@unchecked Sendable`: `multi`, `running` and `pool` are touched only on the loop thread (and in
/// `init` before it starts); `inbox` is a ``Locked`` value. The checker cannot see a thread
/// confinement, so it cannot see this.
final class CurlLoop: @unchecked Sendable {
    private enum Command {
        case start(CurlTransfer)
        case run(UnownedJob)
        case cancel(CurlTransfer)
        case resume(CurlTransfer)
        case shutdown
    }

    /// An easy handle and the error buffer libcurl writes its message into.
    private struct Handle {
        let easy: OpaquePointer
        let errorBuffer: UnsafeMutablePointer<CChar>
    }

    private let multi: OpaquePointer
    private let configuration: CurlTransport.Configuration
    /// Commands for the loop; whether it is (about to be) asleep in `curl_multi_poll`, so needs a
    /// wake-up; whether it has shut down (then nothing more is accepted).
    private let inbox = Locked<(commands: [Command], isAsleep: Bool, isClosed: Bool)>(([], false, false))
    private var running: [OpaquePointer: (transfer: CurlTransfer, handle: Handle)] = [:]
    private var pool: [Handle] = []
    private let poolLimit: Int

    /// Starts the loop's thread; `nil` when libcurl cannot make a multi handle.
    init?(configuration: CurlTransport.Configuration) {
        guard let multi = ccurl_multi_init() else { return nil }
        self.multi = multi
        self.configuration = configuration
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

    /// Resumes a transfer paused because its consumer had no room (a no-op once it ended).
    func resume(_ transfer: CurlTransfer) {
        _ = submit(.resume(transfer))
    }

    /// Ends the loop: running transfers are cancelled, handles freed, the thread exits.
    func shutdown() {
        _ = submit(.shutdown)
    }

    /// Queues the command and wakes the loop if it sleeps (a busy loop reads the queue before it
    /// sleeps again); `false` once the loop has shut down. The wake-up happens under the lock, so it
    /// never reaches a multi handle that is being freed.
    private func submit(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return false }
            inbox.commands.append(command)
            if inbox.isAsleep {
                inbox.isAsleep = false
                ccurl_multi_wakeup(multi)
            }
            return true
        }
    }

    // MARK: The loop thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let commands = inbox.withLock { inbox in
                inbox.isAsleep = false
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return inbox.commands
            }
            for command in commands {
                switch command {
                case .start(let transfer): add(transfer)
                case .run(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                case .cancel(let transfer): remove(transfer, finishingWith: .failure(CancellationError()))
                case .resume(let transfer): unpause(transfer)
                case .shutdown:
                    tearDown()
                    return
                }
            }
            ccurl_multi_perform(multi, &stillRunning)
            let finished = collectFinished()
            let wait = expireIdleTransfers()
            if finished, running.isEmpty { awaitFollowUp() }
            // Sleep only if no command came in meanwhile; from here on a new one wakes the poll.
            let maySleep = inbox.withLock { inbox in
                inbox.isAsleep = inbox.commands.isEmpty
                return inbox.isAsleep
            }
            if maySleep { ccurl_multi_poll(multi, wait, nil) }
        }
    }

    private func add(_ transfer: CurlTransfer) {
        guard !transfer.isFinished else { return }
        let handle: Handle
        if let pooled = pool.popLast() {
            handle = pooled
        } else if let easy = ccurl_easy_init() {
            handle = Handle(easy: easy, errorBuffer: .allocate(capacity: Int(CCURL_ERROR_SIZE) + 1))
            guard CurlTransfer.prepare(easy, errorBuffer: handle.errorBuffer, configuration: configuration) else {
                discard(handle)
                transfer.finish(
                    .failure(
                        APIError(
                            .transport(.other), message: "libcurl refused this transport's options",
                            request: transfer.request)))
                return
            }
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
        if transfer.consumer != nil { transfer.loop = self }
        running[handle.easy] = (transfer, handle)
    }

    /// Lets a paused transfer go on; libcurl may hand it the held-back bytes at once (and the
    /// consumer may pause it again). Its idle clock starts afresh: it waited for its consumer.
    private func unpause(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy, running[easy]?.transfer === transfer, transfer.isPaused else { return }
        transfer.isPaused = false
        transfer.lastActivity = ContinuousClock.now
        ccurl_easy_pause(easy, Int32(CCURLPAUSE_CONT))
    }

    /// Takes a running transfer off libcurl and finishes it (a no-op once it finished otherwise).
    private func remove(_ transfer: CurlTransfer, finishingWith result: Result<CurlTransfer.Delivery, any Error>) {
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

    /// Keeps the handle for the next transfer, its shared options still set (see
    /// ``CurlTransfer/prepare(_:errorBuffer:configuration:)``), or frees it when the pool is full.
    private func recycle(_ handle: Handle) {
        // The header list is freed with the transfer: the handle must not point at it.
        ccurl_easy_setopt_pointer(handle.easy, Int32(CCURLOPT_HTTPHEADER), nil)
        if pool.count < poolLimit {
            pool.append(handle)
        } else {
            discard(handle)
        }
    }

    private func discard(_ handle: Handle) {
        ccurl_easy_cleanup(handle.easy)
        handle.errorBuffer.deallocate()
    }

    /// Finishes the transfers libcurl is done with; `true` when there was one.
    private func collectFinished() -> Bool {
        var easy: OpaquePointer?
        var code: Int32 = 0
        var any = false
        while ccurl_multi_next_done(multi, &easy, &code) == 1 {
            any = true
            guard let easy, let entry = running[easy] else { continue }
            // Copy the outcome out before the handle is removed and reused.
            let result = entry.transfer.result(code: code, errorBuffer: entry.handle.errorBuffer)
            detach(easy)
            entry.transfer.finish(result)
        }
        return any
    }

    /// Right after the last running transfer finished, its caller often sends the next request
    /// within microseconds: look for it briefly before sleeping, which saves the wake-up's system
    /// call and thread switch when requests go one at a time.
    private func awaitFollowUp() {
        let until = ContinuousClock.now + .microseconds(150)
        while ContinuousClock.now < until {
            if inbox.withLock({ !$0.commands.isEmpty }) { return }
            sched_yield()
        }
    }

    /// Fails transfers silent for longer than their idle timeout (the request's, else the
    /// transport's; a transfer paused for its consumer is not silent); returns how long the loop
    /// may sleep before the next one could expire (at most one second).
    private func expireIdleTransfers() -> Int32 {
        guard !running.isEmpty else { return 1000 }
        let now = ContinuousClock.now
        var earliest = Duration.seconds(1)
        var expired: [OpaquePointer] = []
        for (easy, entry) in running {
            if entry.transfer.movedSinceLastLook || entry.transfer.isPaused {
                entry.transfer.movedSinceLastLook = false
                entry.transfer.lastActivity = now
            }
            let left = entry.transfer.lastActivity + entry.transfer.idleTimeout - now
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
        for command in late {
            switch command {
            case .start(let transfer): transfer.finish(.failure(CancellationError()))
            case .run(let job): job.runSynchronously(on: asUnownedTaskExecutor())
            default: break
            }
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

extension CurlLoop: TaskExecutor {
    /// Runs the job on the loop thread, between two turns of the loop.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !submit(.run(job)) {
            // Shut down: nothing may be left unrun, so run it here.
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
