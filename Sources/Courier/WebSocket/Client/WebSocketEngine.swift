import Foundation

/// Drives one ``WebSocketConnection`` over a ``WebSocketChannel``: the engine behind a
/// ``WebSocket``.
///
/// - One **pump** task reads the channel, feeds the connection and carries out its actions; it
///   reads only while fewer than ``WebSocketOptions/maximumBufferedMessages`` messages wait for the
///   reader, so a reader that stops reading stops the socket (the channel reads the network only
///   while a read waits). Once the caller closed the socket, messages the reader has no room for
///   are dropped, so the peer's close frame is still read.
/// - One **writer** task writes what the connection produced, in the order it produced it: every
///   event goes into the connection under the state's lock, and its writes into the outbox in the
///   same critical section. A send returns once its bytes were handed to the channel. A message
///   is handed to the connection (encoded, compressed, queued) only while fewer than
///   ``maximumQueuedSendBytes`` of our writes wait for the writer; until then the send waits with
///   its message unencoded, so a cancelled send leaves nothing behind, and a peer that stops
///   reading holds up the senders, never the process's memory.
/// - Timers (the close timeout) and the keepalive are tasks of their own that feed the connection
///   like any event.
///
/// The connection is not `Sendable` (zlib streams): it lives in the ``Locked`` state and is only
/// touched under its lock (deflating a message to send, inflating one received, included).
/// Continuations are taken out under the lock and resumed after it (``Effects``).
final class WebSocketEngine: Sendable {
    /// How the socket ended: its close, and the error for an abnormal end.
    struct Ending: Sendable {
        var close: WebSocketClose
        var error: APIError?
    }

    private enum Outgoing: Sendable {
        /// A write; `send` names the ``send(_:)`` it completes; `isReply`: the connection wrote it
        /// in answer to the peer (a pong, the close reply), and a later reply replaces it;
        /// `isPing`: our ping, which later pings join while it waits.
        case bytes([UInt8], send: UInt64?, isReply: Bool, isPing: Bool = false)
        case close
    }

    private struct PingWaiter: Sendable {
        /// The ping whose pong answers it (several waiters may share one ping).
        let id: UInt64
        /// This waiter, for its cancellation.
        let token: UInt64
        let sent: ContinuousClock.Instant
        let continuation: CheckedContinuation<Duration, any Error>
    }

    private struct State: Sendable {
        /// `@unchecked` by ``Confined``: only touched under the engine's lock.
        var connection: Confined<WebSocketConnection>
        var inbox: [WebSocketMessage] = []
        var reader: CheckedContinuation<WebSocketMessage?, any Error>?
        var isReaderClaimed = false
        var isReaderCancelled = false
        var pumpWaitingForRoom: CheckedContinuation<Void, Never>?
        var outbox: [Outgoing] = []
        /// The sends waiting for their bytes to be handed to the channel, by number.
        var sends: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Sends not handed to the connection yet (the outbox was full), in the order they came.
        var waitingSends = WebSocketSendQueue()
        /// The bytes of our own writes (not replies) in the outbox.
        var queuedSendBytes = 0
        var lastSendID: UInt64 = 0
        var isCloseQueued = false
        var writer: CheckedContinuation<Void, Never>?
        var ending: Ending?
        var endingWaiters: [CheckedContinuation<Void, Never>] = []
        var pings: [PingWaiter] = []
        var lastPingID: UInt64 = 0
        var lastPingToken: UInt64 = 0
        /// Our ping waiting in the outbox, if one does: a new ping joins it rather than queueing
        /// another (a peer that never reads cannot make pings pile up).
        var queuedPingID: UInt64?
        var closeTimer: Task<Void, Never>?
        var keepalive: Task<Void, Never>?
        /// Whether the caller started the close (``close(code:reason:)``, leaving the loop).
        var isClosing = false
    }

    /// Continuations and tasks taken out under the lock, resumed or cancelled after it.
    private typealias Effects = [@Sendable () -> Void]

    let channel: any WebSocketChannel
    let options: WebSocketOptions
    /// The most replies (pongs, the close reply) waiting for the writer; a newer one replaces the
    /// oldest past it.
    static let maximumQueuedReplies = 16
    /// A message is handed to the connection only while fewer bytes than this of our writes wait
    /// in the outbox: what a peer that stops reading makes Courier hold is about this plus one
    /// message plus the one being written.
    static let maximumQueuedSendBytes = 1 << 20
    /// Whether permessage-deflate was agreed.
    let isCompressed: Bool
    /// The handshake as sent and the server's `101`, attached to errors.
    let request: HTTPRequest?
    let response: HTTPResponse?
    private let state: Locked<State>

    init(
        connection: WebSocketConnection, channel: any WebSocketChannel, options: WebSocketOptions,
        request: HTTPRequest?, response: HTTPResponse?
    ) {
        // `Confined`: the connection is only used under `state`'s lock, and never handed out.
        isCompressed = connection.agreement.compression != nil
        state = Locked(State(connection: Confined(connection)))
        self.channel = channel
        self.options = options
        self.request = request
        self.response = response
    }

    /// Starts the pump, the writer and the keepalive.
    func start() {
        Task { await self.pump() }
        Task { await self.writeLoop() }
        if let interval = options.pingInterval {
            let keepalive = Task { await self.keepAlive(every: interval) }
            state.withLock { $0.keepalive = keepalive }
        }
    }

    // MARK: Reading

    /// Makes the caller the socket's one reader; `false` when another iterator already is.
    func claimReader() -> Bool {
        state.withLock { state in
            defer { state.isReaderClaimed = true }
            return !state.isReaderClaimed
        }
    }

    /// The next message; `nil` once the socket closed with a close handshake.
    func next() async throws -> WebSocketMessage? {
        try Task.checkCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<WebSocketMessage?, any Error>) in
                let effects: Effects = state.withLock { state in
                    if !state.inbox.isEmpty {
                        let message = state.inbox.removeFirst()
                        return [{ continuation.resume(returning: message) }] + Self.makeRoom(&state, options)
                    }
                    if state.isReaderCancelled { return [{ continuation.resume(throwing: CancellationError()) }] }
                    if let ending = state.ending { return [{ Self.resume(continuation, with: ending) }] }
                    if state.reader != nil { return [{ continuation.resume(throwing: Self.secondReaderError) }] }
                    state.reader = continuation
                    return []
                }
                for effect in effects { effect() }
            }
        } onCancel: {
            self.readerCancelled()
        }
    }

    /// The reading task was cancelled: the reader gets `CancellationError`, and the socket closes
    /// with 1001 (going away).
    private func readerCancelled() {
        let reader = state.withLock { state in
            state.isReaderCancelled = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(throwing: CancellationError())
        abandon()
    }

    /// The reader left (its loop ended, its task was cancelled) or the socket was dropped: closes
    /// with 1001 (going away), unless the socket is over or closing already.
    func abandon() {
        run {
            (state) throws(APIError) in
            try startClose(&state, code: .goingAway, reason: "")
        }
    }

    private static func resume(_ continuation: CheckedContinuation<WebSocketMessage?, any Error>, with ending: Ending) {
        if let error = ending.error {
            continuation.resume(throwing: error)
        } else {
            continuation.resume(returning: nil)
        }
    }

    /// Wakes the pump when the inbox has room again.
    private static func makeRoom(_ state: inout State, _ options: WebSocketOptions) -> Effects {
        guard state.inbox.count < options.maximumBufferedMessages, let pump = state.pumpWaitingForRoom else {
            return []
        }
        state.pumpWaitingForRoom = nil
        return [{ pump.resume() }]
    }

    static let secondReaderError = APIError(
        .invalidRequest,
        message: "a WebSocket's messages are read by one reader at a time, and another iterator already reads them")

    // MARK: Sending and closing

    /// Sends `message`; returns once its bytes were handed to the channel.
    ///
    /// The message waits, unencoded, while ``maximumQueuedSendBytes`` of writes wait for the
    /// writer. Cancelling the calling task stops the wait at once with `CancellationError`: a
    /// message still waiting is dropped; one already handed to the connection still goes out in
    /// its turn (its bytes may be compressed into the context of the messages after it, so it
    /// cannot be taken back), unless the socket ends first.
    func send(_ message: WebSocketMessage) async throws {
        let id = state.withLock { state in
            state.lastSendID += 1
            return state.lastSendID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let effects: Effects = state.withLock { state in
                    if Task.isCancelled { return [{ continuation.resume(throwing: CancellationError()) }] }
                    if let refusal = refusal(state) { return [{ continuation.resume(throwing: refusal) }] }
                    var effects: Effects = []
                    state.sends[id] = continuation
                    state.waitingSends.append(id, message)
                    admitWaitingSends(&state, effects: &effects)
                    return effects
                }
                for effect in effects { effect() }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.waitingSends.remove(id)
                return state.sends.removeValue(forKey: id)
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Hands waiting sends to the connection, in order, while the outbox has room; fails them all
    /// once nothing may be sent (the socket closing or over).
    private func admitWaitingSends(_ state: inout State, effects: inout Effects) {
        guard !state.waitingSends.isEmpty else { return }
        if let refusal = refusal(state) {
            let refused = state.waitingSends.removeAll().compactMap { state.sends.removeValue(forKey: $0) }
            effects += refused.map { send in { send.resume(throwing: refusal) } }
            return
        }
        while state.queuedSendBytes < Self.maximumQueuedSendBytes, let (id, message) = state.waitingSends.popFirst() {
            let actions = state.connection.value.send(message)
            apply(actions, to: &state, effects: &effects, completing: id)
        }
    }

    /// Sends a ping and waits for its pong; returns the round trip. While a ping of ours waits in
    /// the outbox (a peer that does not read), a new one joins it rather than queueing another.
    func ping() async throws -> Duration {
        let token = state.withLock { state in
            state.lastPingToken += 1
            return state.lastPingToken
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Duration, any Error>) in
                let effects: Effects = state.withLock { state in
                    if Task.isCancelled { return [{ continuation.resume(throwing: CancellationError()) }] }
                    if let refusal = refusal(state) { return [{ continuation.resume(throwing: refusal) }] }
                    if let queued = state.queuedPingID {
                        state.pings.append(PingWaiter(id: queued, token: token, sent: .now, continuation: continuation))
                        return []
                    }
                    var effects: Effects = []
                    state.lastPingID += 1
                    let id = state.lastPingID
                    let actions = (try? state.connection.value.ping(Self.payload(ofPing: id))) ?? []
                    state.pings.append(PingWaiter(id: id, token: token, sent: .now, continuation: continuation))
                    apply(actions, to: &state, effects: &effects, isPing: true)
                    if actions.contains(where: { if case .write = $0 { true } else { false } }) {
                        state.queuedPingID = id
                    }
                    return effects
                }
                for effect in effects { effect() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.pings.firstIndex { $0.token == token }.map { state.pings.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Starts the close handshake and waits for the socket to end.
    ///
    /// - Returns: the close the socket ended with, when it ended with a close handshake.
    /// - Throws: the error that ended it otherwise; ``APIError/Kind/invalidRequest`` for a code
    ///   that may not be sent.
    func close(code: WebSocketCloseCode, reason: String) async throws -> WebSocketClose {
        var failure: APIError?
        run { (state) throws(APIError) in
            do throws(APIError) {
                return try startClose(&state, code: code, reason: reason)
            } catch {
                failure = error
                return []
            }
        }
        if let failure { throw failure }
        let ending = await ended()
        if let error = ending.error { throw error }
        return ending.close
    }

    private func startClose(_ state: inout State, code: WebSocketCloseCode, reason: String) throws(APIError)
        -> [WebSocketAction]
    {
        guard state.ending == nil else { return [] }
        let actions = try state.connection.value.close(code: code, reason: reason, timeout: options.closeTimeout)
        state.isClosing = true
        return actions
    }

    /// Waits until the socket is over.
    func ended() async -> Ending {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOver = state.withLock { state in
                guard state.ending != nil else {
                    state.endingWaiters.append(continuation)
                    return false
                }
                return true
            }
            if isOver { continuation.resume() }
        }
        return state.withLock { $0.ending! }
    }

    /// Whether the caller started closing the socket (``close(code:reason:)``, leaving its loop).
    var isClosedByCaller: Bool { state.withLock { $0.isClosing } }

    /// How the socket ended; `nil` while it is open or closing.
    var ending: Ending? { state.withLock { $0.ending } }

    /// Why nothing may be sent now, `nil` when it may.
    private func refusal(_ state: State) -> APIError? {
        if let ending = state.ending {
            return ending.error
                ?? APIError(
                    .invalidRequest, message: "the WebSocket is closed (\(ending.close))", request: request,
                    response: response)
        }
        guard state.connection.value.canSend else {
            return APIError(
                .invalidRequest, message: "the WebSocket is closing: nothing may be sent after a close frame",
                request: request, response: response)
        }
        return nil
    }

    // MARK: The connection's events and actions

    /// Feeds the connection an event under the lock, carries out its actions, then runs the effects.
    private func run(_ event: (inout State) throws(APIError) -> [WebSocketAction]) {
        let effects: Effects = state.withLock { state in
            var effects: Effects = []
            do throws(APIError) {
                apply(try event(&state), to: &state, effects: &effects)
            } catch {
                // The caller's mistake (a close code that may not be sent): the event did nothing.
                preconditionFailure("\(error)")
            }
            // A close (ours, a timer's) refuses the sends still waiting.
            admitWaitingSends(&state, effects: &effects)
            // Closing: the pump reads on whatever the inbox holds (the peer's close frame must be
            // read), so a pump parked on a full inbox goes back to reading.
            if state.isClosing, let pump = state.pumpWaitingForRoom {
                state.pumpWaitingForRoom = nil
                effects.append { pump.resume() }
            }
            return effects
        }
        for effect in effects { effect() }
    }

    /// Carries out the connection's actions; `send` names the ``send(_:)`` whose message they
    /// write, `areReplies` says they answer the peer's frames (``pump()``).
    private func apply(
        _ actions: [WebSocketAction], to state: inout State, effects: inout Effects,
        completing send: UInt64? = nil, areReplies: Bool = false, isPing: Bool = false
    ) {
        var send = send
        for action in actions {
            switch action {
            case .write(let bytes):
                if areReplies {
                    // RFC 6455 §5.5.3: a pong may answer only the latest ping. Every ping is
                    // answered while the writer keeps up; past `maximumQueuedReplies` waiting for
                    // it, the oldest gives way to the newest, so a peer that floods pings and never
                    // reads gets a few pongs queued, never an outbox that grows.
                    var queued = 0
                    for outgoing in state.outbox {
                        if case .bytes(_, nil, isReply: true, _) = outgoing { queued += 1 }
                    }
                    if queued >= Self.maximumQueuedReplies,
                        let oldest = state.outbox.firstIndex(where: { outgoing in
                            if case .bytes(_, nil, isReply: true, _) = outgoing { return true }
                            return false
                        })
                    {
                        state.outbox.remove(at: oldest)
                    }
                }
                // The last write of a send completes it (a message is one write).
                state.outbox.append(.bytes(bytes, send: send, isReply: areReplies, isPing: isPing))
                if !areReplies { state.queuedSendBytes += bytes.count }
                send = nil
                effects += wakeWriter(&state)
            case .deliver(let message):
                if let reader = state.reader {
                    state.reader = nil
                    effects.append { reader.resume(returning: message) }
                } else if !state.isClosing || state.inbox.count < options.maximumBufferedMessages {
                    state.inbox.append(message)
                }
            case .receivedPong(let payload):
                effects += answerPings(upTo: Self.pingID(in: payload), in: &state)
            case .startTimer(.closeTimeout, let delay):
                state.closeTimer?.cancel()
                state.closeTimer = Task { [weak self] in
                    try? await Task.sleep(for: delay)
                    guard !Task.isCancelled else { return }
                    self?.run { state in state.connection.value.timerFired(.closeTimeout) }
                }
            case .cancelTimer(.closeTimeout):
                state.closeTimer?.cancel()
                state.closeTimer = nil
            case .closeConnection:
                queueClose(&state, effects: &effects)
            case .finish(let ending):
                if case .closeTimedOut = ending {
                    // The peer had its close timeout: the connection goes now, even with a write of
                    // ours stuck behind a peer that stopped reading.
                    effects.append { [channel] in channel.close() }
                }
                finish(Self.ending(ending, request: request, response: response), in: &state, effects: &effects)
            }
        }
        if let send, let waiting = state.sends.removeValue(forKey: send) { effects.append { waiting.resume() } }
    }

    private func queueClose(_ state: inout State, effects: inout Effects) {
        guard !state.isCloseQueued else { return }
        state.isCloseQueued = true
        state.outbox.append(.close)
        effects += wakeWriter(&state)
    }

    private func wakeWriter(_ state: inout State) -> Effects {
        guard let writer = state.writer else { return [] }
        state.writer = nil
        return [{ writer.resume() }]
    }

    /// The socket is over: everyone waiting hears how.
    private func finish(_ ending: Ending, in state: inout State, effects: inout Effects) {
        guard state.ending == nil else { return }
        state.ending = ending
        queueClose(&state, effects: &effects)
        if let reader = state.reader {
            state.reader = nil
            effects.append { Self.resume(reader, with: ending) }
        }
        if let pump = state.pumpWaitingForRoom {
            state.pumpWaitingForRoom = nil
            effects.append { pump.resume() }
        }
        let waiters = state.endingWaiters
        state.endingWaiters = []
        effects += waiters.map { waiter in { waiter.resume() } }
        let pings = state.pings
        state.pings = []
        let error =
            ending.error
            ?? APIError(
                .transport(.connectionLost), message: "the WebSocket closed (\(ending.close)) before the pong came",
                request: request, response: response)
        effects += pings.map { ping in { ping.continuation.resume(throwing: error) } }
        let tasks = [state.closeTimer, state.keepalive].compactMap { $0 }
        state.closeTimer = nil
        state.keepalive = nil
        effects += tasks.map { task in { task.cancel() } }
        // The writer closes the channel once the queued writes (our close frame among them) went
        // out; a peer that stopped reading holds them up, so the channel is closed after the close
        // timeout whatever the writer does.
        effects.append { [channel, options] in
            Task {
                try? await Task.sleep(for: options.closeTimeout)
                channel.close()
            }
        }
    }

    /// Ends the socket at once with `error` (a dead peer, a broken connection): the channel is
    /// closed without waiting for the writes queued.
    func fail(_ error: APIError) {
        let effects: Effects = state.withLock { state in
            guard state.ending == nil else { return [] }
            var effects: Effects = []
            _ = state.connection.value.connectionEnded()
            finish(Ending(close: WebSocketClose(code: .abnormalClosure), error: error), in: &state, effects: &effects)
            admitWaitingSends(&state, effects: &effects)
            return effects
        }
        channel.close()
        for effect in effects { effect() }
    }

    private static func ending(_ ending: WebSocketEnding, request: HTTPRequest?, response: HTTPResponse?) -> Ending {
        switch ending {
        case .closed(let frame, _):
            return Ending(close: WebSocketClose(code: frame.code ?? .noStatusReceived, reason: frame.reason))
        case .failed(let violation):
            return Ending(
                close: WebSocketClose(code: violation.closeCode, reason: violation.reason),
                error: violation.apiError.attaching(request: request, response: response))
        case .closeTimedOut:
            return Ending(
                close: WebSocketClose(code: .abnormalClosure),
                error: APIError(
                    .transport(.timedOut),
                    message: "the WebSocket peer did not answer the close frame in time; Courier closed the connection "
                        + "(1006, abnormal closure)", request: request, response: response))
        case .connectionLost:
            return Ending(close: WebSocketClose(code: .abnormalClosure), error: lostError(request, response))
        }
    }

    static func lostError(_ request: HTTPRequest?, _ response: HTTPResponse?, cause: (any Error)? = nil) -> APIError {
        APIError(
            .transport(.connectionLost),
            message: "the WebSocket connection ended without a close frame (1006, abnormal closure)"
                + (cause.map { ": \($0)" } ?? ""), request: request, response: response, underlyingError: cause)
    }

    // MARK: Pings

    private static func payload(ofPing id: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: id >> (56 - 8 * UInt64($0))) }
    }

    private static func pingID(in payload: [UInt8]) -> UInt64? {
        guard payload.count == 8 else { return nil }
        return payload.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A pong answers its ping and every ping before it (a peer may answer only the latest).
    private func answerPings(upTo id: UInt64?, in state: inout State) -> Effects {
        guard let id else { return [] }
        let now = ContinuousClock.now
        let answered = state.pings.filter { $0.id <= id }
        state.pings.removeAll { $0.id <= id }
        return answered.map { ping in { ping.continuation.resume(returning: now - ping.sent) } }
    }

    // MARK: Tasks

    /// The most bytes fed to the connection at once when messages are compressed: between two
    /// pieces the pump waits for room in the inbox, so one read cannot complete more than a
    /// piece's worth of messages past the limit (a 4 KiB piece inflates to about 4 MiB at the
    /// most). Uncompressed, a read completes at most its own size in messages: it goes whole.
    static let compressedFeedSize = 4096

    /// Reads the channel while the inbox has room, and feeds the connection piece by piece.
    private func pump() async {
        while true {
            await waitForRoom()
            if ending != nil { return }
            let bytes: [UInt8]?
            do {
                bytes = try await channel.read()
            } catch {
                fail(Self.lostError(request, response, cause: error is CancellationError ? nil : error))
                return
            }
            guard let bytes else {
                feed(nil)
                continue
            }
            let feedSize = isCompressed ? Self.compressedFeedSize : bytes.count
            var start = 0
            while start < bytes.count {
                if start > 0 {
                    await waitForRoom()
                    if ending != nil { return }
                }
                let end = min(bytes.count, start + feedSize)
                feed(start == 0 && end == bytes.count ? bytes : Array(bytes[start..<end]))
                start = end
            }
        }
    }

    /// Waits while the inbox is full (and the socket open, and not closing).
    private func waitForRoom() async {
        let isFull = state.withLock { state in
            state.ending == nil && !state.isClosing && state.inbox.count >= options.maximumBufferedMessages
        }
        guard isFull else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state in
                guard state.ending == nil, !state.isClosing,
                    state.inbox.count >= options.maximumBufferedMessages
                else { return false }
                state.pumpWaitingForRoom = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// Feeds the connection bytes read (`nil`: the peer closed the connection); what it writes in
    /// answer are replies (``apply(_:to:effects:completing:areReplies:)``).
    private func feed(_ bytes: [UInt8]?) {
        let effects: Effects = state.withLock { state in
            var effects: Effects = []
            let actions = bytes.map { state.connection.value.receive($0) } ?? state.connection.value.connectionEnded()
            apply(actions, to: &state, effects: &effects, areReplies: true)
            // The peer's close (or a violation) refuses the sends still waiting.
            admitWaitingSends(&state, effects: &effects)
            return effects
        }
        for effect in effects { effect() }
    }

    /// Writes the outbox in order; closes the channel at its end.
    private func writeLoop() async {
        while true {
            let (next, effects): (Outgoing?, Effects) = state.withLock { state in
                guard !state.outbox.isEmpty else { return (nil, []) }
                let next = state.outbox.removeFirst()
                var effects: Effects = []
                if case .bytes(_, _, _, isPing: true) = next { state.queuedPingID = nil }
                if case .bytes(let bytes, _, isReply: false, _) = next {
                    // Room in the outbox: the next waiting send is handed to the connection (its
                    // encoding overlaps this write).
                    state.queuedSendBytes -= bytes.count
                    admitWaitingSends(&state, effects: &effects)
                }
                return (next, effects)
            }
            for effect in effects { effect() }
            switch next {
            case .bytes(let bytes, let send, _, _):
                do {
                    try await channel.write(bytes)
                    let waiting = send.flatMap { id in state.withLock { $0.sends.removeValue(forKey: id) } }
                    waiting?.resume()
                } catch {
                    let failure = (error as? APIError) ?? Self.lostError(request, response, cause: error)
                    let waiting = send.flatMap { id in state.withLock { $0.sends.removeValue(forKey: id) } }
                    waiting?.resume(throwing: ending?.error ?? failure)
                    fail(failure)
                }
            case .close:
                channel.close()
                let (waiting, error) = state.withLock { state in
                    defer { state.sends = [:] }
                    return (Array(state.sends.values), state.ending?.error)
                }
                let failure =
                    error
                    ?? APIError(
                        .invalidRequest, message: "the WebSocket closed before the message went out", request: request,
                        response: response)
                for send in waiting { send.resume(throwing: failure) }
                return
            case nil:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let waits = state.withLock { state in
                        guard state.outbox.isEmpty else { return false }
                        state.writer = continuation
                        return true
                    }
                    if !waits { continuation.resume() }
                }
            }
        }
    }

    /// Pings every `interval`; a pong that does not come within the pong timeout ends the socket.
    private func keepAlive(every interval: Duration) async {
        let timeout = options.pongTimeout
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled, ending == nil else { return }
            // `true`: a pong came, or the ping was refused (the socket is closing: its close timeout
            // rules from now on); `false`: the pong timeout passed first.
            let answered = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    _ = try? await self.ping()
                    return true
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            // Closing (either side started it) or over: the keepalive's work is done.
            guard !Task.isCancelled, state.withLock({ $0.ending == nil && $0.connection.value.canSend }) else { return }
            guard !answered else { continue }
            fail(
                APIError(
                    .transport(.timedOut),
                    message: "the WebSocket peer did not answer a keepalive ping within "
                        + "\(DurationText.seconds(timeout)): the connection is taken for dead", request: request,
                    response: response))
        }
    }
}
