import CCourierCurl
import Foundation

/// One thread that drives transfers of a ``CurlTransport``: a libcurl multi handle, pooled easy
/// handles, a connection cache that keeps keep-alive connections across requests. A transport
/// runs one or more of them (``CurlTransport/Configuration/loops``).
///
/// Callers hand transfers over with ``start(_:)``, ``cancel(_:)`` and ``resume(_:)`` (a stream's
/// reader caught up), and jobs with ``run(_:on:)`` (the transport's task executor), each of which
/// queues a command and wakes the loop if it sleeps (`curl_multi_wakeup`, the one libcurl call
/// allowed from any thread). Everything else — every libcurl call, every callback, the table of
/// running transfers, the queue of transfers waiting for a slot, each transfer's idle clock —
/// happens on the loop thread.
///
/// At most `limits.transfers` transfers are in libcurl's hands at once; later ones wait in order
/// (a waiting transfer costs a few hundred bytes, an easy handle about 20 KB with its buffer),
/// their deadline running.
///
/// `@unchecked Sendable`: `multi`, `running`, `waiting` and `pool` are touched only on the loop
/// thread (and in `init` before it starts); `inbox` is a ``Locked`` value. The checker cannot see a
/// thread confinement, so it cannot see this.
final class CurlLoop: @unchecked Sendable {
    /// What one loop may hold: its share of the transport's limits.
    struct Limits {
        /// Transfers in libcurl's hands at once; more wait in the loop's queue.
        var transfers: Int
        /// Connections to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`).
        var connectionsPerHost: Int
        /// Idle connections kept, and easy handles pooled.
        var connections: Int
    }

    private enum Command {
        case start(CurlTransfer)
        /// A job of the transport's task executor (a closure: the executor types exist only on
        /// newer Apple systems, where an enum case cannot name them).
        case job(@Sendable () -> Void)
        case cancel(CurlTransfer)
        case resume(CurlTransfer)
        case resumeUpload(CurlTransfer)
        /// A WebSocket to connect; its sockets are then looked at on every turn.
        case openSocket(CurlWebSocket)
        /// A look at the sockets (a read or write waits, or one closed).
        case wake
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
    /// Transfers waiting for a slot, in arrival order and by deadline.
    private var waiting = DeadlineQueue<CurlTransfer>()
    private var pool: [Handle] = []
    /// Commands of the current turn not yet carried out (see ``isIdle``).
    private var commandsLeftInTurn = 0
    /// The commands of the turn in hand, swapped with the inbox's (loop thread only): both arrays
    /// keep their storage, so a turn allocates none.
    private var turnCommands: [Command] = []
    /// Open WebSockets, the sockets to poll besides libcurl's, and the one read buffer they share.
    private var webSockets: [ObjectIdentifier: CurlWebSocket] = [:]
    private var pollSockets: [ccurl_waitfd] = []
    private var readBuffer: [UInt8] = []
    private let limits: Limits
    /// The `CURLOPT_RESOLVE` lines every handle of the loop shares (libcurl reads them at the start
    /// of each transfer), freed after the last handle.
    private let resolveList: OpaquePointer?

    /// Starts the loop's thread; `nil` when libcurl cannot make a multi handle.
    init?(configuration: CurlTransport.Configuration, limits: Limits, name: String) {
        guard let multi = ccurl_multi_init() else { return nil }
        self.multi = multi
        self.configuration = configuration
        self.limits = limits
        resolveList = CurlTransfer.makeResolveList(configuration.resolve)
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_PIPELINING), CCURLPIPE_MULTIPLEX)
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAXCONNECTS), limits.connections)
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), limits.connectionsPerHost)
        // Named from the thread itself: Foundation's `Thread.name` does not reach the system's
        // thread name on Linux, which profilers and debuggers show.
        let thread = Thread { [self] in
            ccourier_name_thread(name)
            turnUntilShutdown()
        }
        thread.start()
    }

    /// Whether the loop has nothing in hand but the job it runs: no transfer running or waiting,
    /// no WebSocket, no command queued or left in this turn. Asked on the loop thread only.
    var isIdle: Bool {
        running.isEmpty && waiting.isEmpty && webSockets.isEmpty && commandsLeftInTurn == 0
            && inbox.withLock { $0.commands.isEmpty }
    }

    /// Whether the calling thread is this loop's.
    var isCurrent: Bool {
        ccourier_current_loop() == Unmanaged.passUnretained(self).toOpaque()
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

    /// Resumes a transfer whose body stream had nothing to send and has now (a no-op once it ended).
    func resumeUpload(_ transfer: CurlTransfer) {
        _ = submit(.resumeUpload(transfer))
    }

    /// Runs the job on the loop thread between two turns of the loop, as `executor`'s (the
    /// transport's task executor, which spreads jobs over its loops); a loop that has shut down
    /// runs it on the calling thread, as nothing may be left unrun.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func enqueue(_ job: UnownedJob, as executor: UnownedTaskExecutor) {
        let work: @Sendable () -> Void = { job.runSynchronously(on: executor) }
        if !submit(.job(work)) { work() }
    }

    /// Connects the WebSocket on the loop thread; it fails at once when the loop has shut down.
    func open(_ socket: CurlWebSocket) {
        if !submit(.openSocket(socket)) {
            socket.end(Self.shutDownError(socket.request), closing: false)
        }
    }

    /// Has the loop look at its WebSockets (a read or write waits, or one closed).
    func wake() {
        _ = submit(.wake)
    }

    private static func shutDownError(_ request: HTTPRequest) -> APIError {
        APIError(.transport(.other), message: "the transport has shut down", request: request)
    }

    /// Ends the loop: running and waiting transfers are cancelled, handles freed, the thread exits.
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

    private func turnUntilShutdown() {
        ccourier_set_current_loop(Unmanaged.passUnretained(self).toOpaque())
        var stillRunning: Int32 = 0
        while true {
            inbox.withLock { inbox in
                inbox.isAsleep = false
                swap(&inbox.commands, &turnCommands)
            }
            let count = turnCommands.count
            for index in 0..<count {
                let command = turnCommands[index]
                commandsLeftInTurn = count - index - 1
                switch command {
                case .start(let transfer): add(transfer)
                case .job(let work): work()
                case .cancel(let transfer): forget(transfer)
                case .resume(let transfer): unpause(transfer)
                case .resumeUpload(let transfer): unpauseUpload(transfer)
                case .openSocket(let socket):
                    if socket.begin(configuration: configuration, resolveList: resolveList) {
                        webSockets[ObjectIdentifier(socket)] = socket
                    }
                case .wake: break
                case .shutdown:
                    // Commands queued after the shutdown in the same turn end as late ones do.
                    tearDown(leftovers: Array(turnCommands[(index + 1)...]))
                    turnCommands.removeAll()
                    return
                }
            }
            turnCommands.removeAll(keepingCapacity: true)
            ccurl_multi_perform(multi, &stillRunning)
            collectFinished()
            var wait = expireTransfers()
            admitWaiting()
            if !webSockets.isEmpty { wait = min(wait, serviceWebSockets()) }
            // Sleep only if no command came in meanwhile; from here on a new one wakes the poll.
            let maySleep = inbox.withLock { inbox in
                inbox.isAsleep = inbox.commands.isEmpty
                return inbox.isAsleep
            }
            guard maySleep else { continue }
            if pollSockets.isEmpty {
                ccurl_multi_poll(multi, wait, nil)
            } else {
                let count = UInt32(pollSockets.count)
                pollSockets.withUnsafeMutableBufferPointer { sockets in
                    _ = ccurl_multi_poll_with(multi, sockets.baseAddress, count, wait, nil)
                }
            }
        }
    }

    /// Moves the WebSockets' bytes and fills `pollSockets` with what to wait for; how long the
    /// loop may sleep (a handshake's deadline, libcurl's timer while one connects).
    private func serviceWebSockets() -> Int32 {
        pollSockets.removeAll(keepingCapacity: true)
        var earliest = Duration.seconds(1)
        for (key, socket) in webSockets {
            guard let wait = socket.service(polling: &pollSockets, buffer: &readBuffer) else {
                webSockets[key] = nil
                continue
            }
            if let wait { earliest = min(earliest, max(wait, .zero)) }
        }
        if webSockets.isEmpty { readBuffer = [] }
        return earliest == .zero ? 0 : Self.milliseconds(earliest)
    }

    /// Gives the transfer to libcurl, or queues it when the loop holds its limit already.
    private func add(_ transfer: CurlTransfer) {
        guard !transfer.isFinished else { return }
        if running.count >= limits.transfers {
            transfer.waitingTicket = waiting.append(transfer, deadline: transfer.deadline)
            return
        }
        admit(transfer)
    }

    /// Admits waiting transfers while there are free slots.
    private func admitWaiting() {
        while running.count < limits.transfers, let transfer = waiting.popFirst() {
            transfer.waitingTicket = nil
            if !transfer.isFinished { admit(transfer) }
        }
    }

    private func admit(_ transfer: CurlTransfer) {
        let handle: Handle
        if let pooled = pool.popLast() {
            handle = pooled
        } else if let easy = ccurl_easy_init() {
            handle = Handle(easy: easy, errorBuffer: .allocate(capacity: Int(CCURL_ERROR_SIZE) + 1))
            if let refused = CurlTransfer.prepare(
                easy, errorBuffer: handle.errorBuffer, configuration: configuration, resolveList: resolveList)
            {
                discard(handle)
                transfer.finish(
                    .failure(
                        APIError(
                            .transport(.other), message: "libcurl refused this transport's setting of \(refused)",
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
        if transfer.consumer != nil || transfer.bodyStream != nil { transfer.loop = self }
        running[handle.easy] = (transfer, handle)
    }

    /// Lets a paused transfer go on; libcurl may hand it the held-back bytes at once (and the
    /// consumer may pause it again). Its idle clock starts afresh: it waited for its consumer.
    private func unpause(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy, running[easy]?.transfer === transfer, transfer.isPaused else { return }
        transfer.isPaused = false
        transfer.lastActivity = ContinuousClock.now
        // Sending stays paused while the body stream has nothing.
        ccurl_easy_pause(easy, Int32(transfer.isWaitingForBody ? CCURLPAUSE_SEND : CCURLPAUSE_CONT))
    }

    /// Lets a transfer whose body stream had nothing send again (receiving stays paused if its
    /// consumer has no room). The idle clock runs on: the producer was silent meanwhile.
    private func unpauseUpload(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy, running[easy]?.transfer === transfer, transfer.isWaitingForBody else { return }
        transfer.isWaitingForBody = false
        ccurl_easy_pause(easy, Int32(transfer.isPaused ? CCURLPAUSE_RECV : CCURLPAUSE_CONT))
    }

    /// Forgets a cancelled transfer: out of the waiting line, or off libcurl (its canceller
    /// finished it already).
    private func forget(_ transfer: CurlTransfer) {
        if let ticket = transfer.waitingTicket {
            transfer.waitingTicket = nil
            waiting.remove(ticket)
        } else {
            remove(transfer, finishingWith: .failure(CancellationError()))
        }
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
    /// ``CurlTransfer/prepare(_:errorBuffer:configuration:resolveList:)``), or frees it when the pool is full.
    private func recycle(_ handle: Handle) {
        // The header lists are freed with the transfer: the handle must not point at them.
        ccurl_easy_setopt_pointer(handle.easy, Int32(CCURLOPT_HTTPHEADER), nil)
        ccurl_easy_setopt_pointer(handle.easy, Int32(CCURLOPT_PROXYHEADER), nil)
        if pool.count < limits.connections {
            pool.append(handle)
        } else {
            discard(handle)
        }
    }

    private func discard(_ handle: Handle) {
        ccurl_easy_cleanup(handle.easy)
        handle.errorBuffer.deallocate()
    }

    /// Finishes the transfers libcurl is done with.
    private func collectFinished() {
        var easy: OpaquePointer?
        var code: Int32 = 0
        while ccurl_multi_next_done(multi, &easy, &code) == 1 {
            guard let easy, let entry = running[easy] else { continue }
            // Copy the outcome out before the handle is removed and reused.
            let result = entry.transfer.result(code: code, errorBuffer: entry.handle.errorBuffer)
            detach(easy)
            entry.transfer.finish(result)
        }
    }

    /// Fails transfers silent for longer than their idle timeout (the request's, else the
    /// transport's; a transfer paused for its consumer is not silent), transfers whose deadline
    /// passed wherever they are (libcurl does not apply its own timeout to a transfer waiting for a
    /// connection to a host at its limit), and waiting transfers whose deadline passed; returns how
    /// long the loop may sleep before the next one could expire (at most one second).
    private func expireTransfers() -> Int32 {
        let now = ContinuousClock.now
        var earliest = Duration.seconds(1)
        for transfer in waiting.sweep(now: now) {
            transfer.waitingTicket = nil
            transfer.finish(.failure(transfer.deadlineFailure()))
        }
        if let next = waiting.nextDeadline() { earliest = min(earliest, max(next - now, .milliseconds(1))) }
        guard !running.isEmpty else { return Self.milliseconds(earliest) }
        var expired: [(easy: OpaquePointer, isPastDeadline: Bool)] = []
        for (easy, entry) in running {
            let transfer = entry.transfer
            if transfer.movedSinceLastLook || transfer.isPaused {
                transfer.movedSinceLastLook = false
                transfer.lastActivity = now
            }
            let idleLeft = transfer.lastActivity + transfer.idleTimeout - now
            let deadlineLeft = transfer.deadline - now
            if deadlineLeft <= .zero || idleLeft <= .zero {
                expired.append((easy, deadlineLeft <= .zero))
            } else {
                earliest = min(earliest, idleLeft, deadlineLeft)
            }
        }
        for (easy, isPastDeadline) in expired {
            guard let entry = running[easy] else { continue }
            detach(easy)
            entry.transfer.finish(
                .failure(isPastDeadline ? entry.transfer.deadlineFailure() : entry.transfer.idleFailure()))
        }
        return Self.milliseconds(earliest)
    }

    /// A wait in whole milliseconds for `curl_multi_poll`, rounded up, at least one.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }

    private func tearDown(leftovers: [Command] = []) {
        let late = inbox.withLock { inbox in
            inbox.isClosed = true
            defer { inbox.commands.removeAll() }
            return leftovers + inbox.commands
        }
        for command in late {
            switch command {
            case .start(let transfer): transfer.finish(.failure(CancellationError()))
            case .job(let work): work()
            case .openSocket(let socket): socket.end(Self.shutDownError(socket.request), closing: false)
            default: break
            }
        }
        // Before the resolve list goes: the sockets' handles point at it.
        for socket in webSockets.values {
            socket.end(Self.shutDownError(socket.request), closing: false)
            socket.tearDown()
        }
        webSockets.removeAll()
        for transfer in waiting.removeAll() { transfer.finish(.failure(CancellationError())) }
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
        if let resolveList { ccurl_slist_free_all(resolveList) }
    }
}
