import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The state of one URLSession data task: the body so far, and the continuation to resume exactly
/// once, by whichever comes first: completion, the deadline, the size limit, or cancellation.
///
/// Its mutable state is one value behind one lock (``Locked``); the continuation, the consumer and
/// the task's suspend, resume and cancel are called after the lock is released.
final class URLSessionExchange: Sendable {
    struct State {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var earlyResult: Result<HTTPResponse, any Error>?
        var isFinished = false
        var body = Data()
        var deadlineTimer: UInt64?
        /// `Confined`: the task is kept and taken out under the lock; it is called only after.
        var task: Confined<URLSessionTask>?
        var declinedChallenge = false
        /// Whether the consumer took the body: pieces go to it, not into `body`.
        var isStreaming = false
        /// Whether the head was offered to the consumer yet (download tasks learn it late).
        var headOffered = false
        /// Where a download task's body was kept, until it is handed over.
        var downloadedFile: URL?
        /// Flow control: whether the task is suspended because the consumer has no room, and
        /// whether room came back while the exchange was deciding to suspend it.
        var isPausedForConsumer = false
        var roomCameBack = false
        /// The exchange's own idle timeout, when URLSession's cannot be used (it runs on while the
        /// task is suspended for the consumer): when a byte last moved, and the timer that looks.
        var lastActivity = ContinuousClock.now
        var idleTimer: UInt64?
    }

    let request: HTTPRequest
    let timeout: Duration
    let maximumResponseSize: Int

    let state = Locked(State())
    let consumer: (any ResponseBodyConsumer)?
    /// Whether URLSession buffers this exchange's body on disk (a download task).
    let isDownloadTask: Bool
    /// The largest body a data task streams; a larger one is fetched again with a download task.
    static let largestStreamedBody: Int64 = 16 << 20
    /// Told how much of the request body went out, when the caller watches upload progress.
    let uploadMeter: UploadMeter?
    /// The request's body file, opened for this exchange (see ``BodyFile``).
    let bodyFile: BodyFile?
    /// Suspends and resumes tasks in the order they were decided (a resume that overtook its suspend
    /// would be a fatal error in Foundation).
    private static let flowQueue = DispatchQueue(label: "Courier.URLSessionTransport.flow")

    init(
        request: HTTPRequest, timeout: Duration, maximumResponseSize: Int,
        consumer: (any ResponseBodyConsumer)? = nil, isDownloadTask: Bool = false, uploadMeter: UploadMeter? = nil,
        bodyFile: BodyFile? = nil
    ) {
        self.uploadMeter = uploadMeter
        self.bodyFile = bodyFile
        self.isDownloadTask = isDownloadTask
        self.request = request
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
        self.consumer = consumer
    }

    /// Stores the continuation; `false` when the exchange already finished (cancelled before it started),
    /// in which case the continuation has been resumed with that result.
    func start(_ continuation: CheckedContinuation<HTTPResponse, any Error>) -> Bool {
        let early = state.withLock { state -> Result<HTTPResponse, any Error>? in
            if let early = state.earlyResult { return early }
            state.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Fails the exchange as timed out when `delay` passes first, and cancels its task. The timer
    /// runs on ``DeadlineClock``'s own thread, so it fires on time however busy URLSession is.
    func armDeadline(after delay: Duration) {
        let timer = DeadlineClock.shared.schedule(after: delay) { [self] in
            finish(.failure(RedirectLoop.timeoutError(request, timeout: timeout)))
            cancelTask()
        }
        let finished = state.withLock { state in
            if !state.isFinished { state.deadlineTimer = timer }
            return state.isFinished
        }
        if finished { DeadlineClock.shared.cancel(timer) }
    }

    /// Fails the exchange as timed out when no byte moves for `idleTimeout` while the consumer is
    /// reading: for streams, whose task URLSession would time out while it is suspended.
    func armIdleTimeout(_ idleTimeout: Duration, after delay: Duration? = nil) {
        let timer = DeadlineClock.shared.schedule(after: delay ?? idleTimeout) { [weak self] in
            self?.checkIdle(idleTimeout)
        }
        let finished = state.withLock { state in
            if !state.isFinished { state.idleTimer = timer }
            return state.isFinished
        }
        if finished { DeadlineClock.shared.cancel(timer) }
    }

    private func checkIdle(_ idleTimeout: Duration) {
        let (finished, quiet, paused) = state.withLock { state in
            let quiet = ContinuousClock.now - state.lastActivity
            if state.isPausedForConsumer { state.lastActivity = .now }
            return (state.isFinished, quiet, state.isPausedForConsumer)
        }
        guard !finished else { return }
        if paused || quiet < idleTimeout {
            armIdleTimeout(idleTimeout, after: paused ? idleTimeout : idleTimeout - quiet)
            return
        }
        finish(
            .failure(
                APIError(
                    .transport(.timedOut), message: "no byte moved for \(DurationText.seconds(idleTimeout))",
                    request: request)))
        cancelTask()
    }

    /// Keeps the task, to cancel it later; `false` (and the caller cancels it) when the exchange
    /// already finished.
    func attach(_ task: URLSessionTask) -> Bool {
        let attached = state.withLock { state in
            guard !state.isFinished else { return false }
            state.task = Confined(task)
            return true
        }
        if attached, isDownloadTask { watchDownload(task) }
        return attached
    }

    /// Cancels the task, if one was attached, off the calling thread: URLSession's `cancel()` waits
    /// for the session's own queue, which a flood of callbacks can keep busy for seconds.
    func cancelTask() {
        let task = state.withLock { state in
            defer { state.task = nil }
            return state.task
        }
        if let task { DispatchQueue.global().async { task.value.cancel() } }
    }

    /// Finishes the exchange with `result` unless it has finished already.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        let ended = state.withLock { state -> (CheckedContinuation<HTTPResponse, any Error>?, [UInt64])? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            let continuation = state.continuation
            state.continuation = nil
            if continuation == nil { state.earlyResult = result }
            let timers = [state.deadlineTimer, state.idleTimer].compactMap { $0 }
            state.deadlineTimer = nil
            state.idleTimer = nil
            state.body = Data()
            return (continuation, timers)
        }
        guard let (continuation, timers) = ended else { return }
        for timer in timers { DeadlineClock.shared.cancel(timer) }
        continuation?.resume(with: result)
    }

    /// Offers the head to the consumer, if any (not for a redirect, which is followed instead), and
    /// checks the announced size of a body kept in memory; `false` (and the exchange failed) when
    /// the consumer threw or the body is over the limit.
    func receive(_ response: URLResponse) -> Bool {
        state.withLock { $0.lastActivity = .now }
        let head = (response as? HTTPURLResponse).map { Self.makeResponse($0, body: Data(), request: request) }
        if let head, let problem = ResponseFraming.lengthProblem(head.headers) {
            // RFC 9112 §6.3: differing Content-Length values make the framing unknowable.
            finish(.failure(APIError(.transport(.badResponse), message: problem, request: request)))
            return false
        }
        if let consumer, let http = response as? HTTPURLResponse, let head,
            !ResponseFraming.isRedirect(status: http.statusCode, headers: head.headers)
        {
            do {
                let streams = try consumer.responseHeadArrived(head)
                state.withLock { $0.isStreaming = streams }
                let buffersOnDisk = isDownloadTask
                // A stream bounds its own backlog (StreamOptions.maximumBacklog) and has no disk to fall back on.
                if streams, !buffersOnDisk, !consumer.mayPauseForLong,
                    http.expectedContentLength > Self.largestStreamedBody
                {
                    // URLSession cannot slow the network down to the consumer's pace: a large body
                    // would pile up in memory. Ask again with a download task, which can.
                    consumer.didFallBehind()
                    finish(.failure(switchingError(http.expectedContentLength)))
                    return false
                }
                if streams { return true }
            } catch {
                finish(.failure(error))
                return false
            }
        }
        if response.expectedContentLength > Int64(maximumResponseSize) {
            finish(.failure(tooLargeError()))
            return false
        }
        return true
    }

    /// Takes body bytes: to the consumer when it streams, else into memory; `false` (and the
    /// exchange failed) once the consumer throws or the body passes the limit.
    func append(_ data: Data) -> Bool {
        enum Step { case over, stream, kept, tooLarge }
        let step = state.withLock { state -> Step in
            guard !state.isFinished else { return .over }
            state.lastActivity = .now
            if state.isStreaming, consumer != nil {
                state.roomCameBack = false
                return .stream
            }
            guard state.body.count + data.count <= maximumResponseSize else { return .tooLarge }
            state.body.append(data)
            return .kept
        }
        switch step {
        case .over: return false
        case .kept: return true
        case .tooLarge:
            finish(.failure(tooLargeError()))
            return false
        case .stream:
            guard let consumer else { return false }
            guard consumerAccepts({ try consumer.receive(data) }) else { return false }
            if Self.canPause, !consumer.hasRoom(orWhenRoom: { [weak self] in self?.consumerHasRoom() }) {
                pauseForConsumer()
            }
            return true
        }
    }

    /// Whether a suspended data task resumes where it stopped. FoundationNetworking (Linux) sends
    /// the request again from the start on `resume()`, so there the consumer's buffer must bound
    /// itself (``StreamOptions/maximumBacklog``).
    #if canImport(FoundationNetworking)
        static let canPause = false
    #else
        static let canPause = true
    #endif

    /// Suspends the task until the consumer has room, unless room came back meanwhile. URLSession
    /// has read the bytes in flight already; the consumer takes those, then nothing more arrives.
    private func pauseForConsumer() {
        // Queued under the lock: the flow queue then sees suspends and resumes in decision order.
        state.withLock { state in
            guard !state.roomCameBack, !state.isFinished, let task = state.task else { return }
            guard !state.isPausedForConsumer else { return }
            state.isPausedForConsumer = true
            Self.flowQueue.async { task.value.suspend() }
        }
    }

    /// The consumer has room again: resume the task if it was suspended for it.
    private func consumerHasRoom() {
        state.withLock { state in
            guard state.isPausedForConsumer else {
                state.roomCameBack = true
                return
            }
            state.isPausedForConsumer = false
            state.lastActivity = .now
            if let task = state.task { Self.flowQueue.async { task.value.resume() } }
        }
    }

    /// Runs a call to the consumer; `false` (and the exchange failed with its error) when it threw.
    func consumerAccepts(_ call: () throws -> Void) -> Bool {
        do {
            try call()
            return true
        } catch {
            finish(.failure(error))
            return false
        }
    }

    /// Notes that an authentication challenge was declined, so that the cancellation that follows it
    /// on Linux is read as the 401 it is.
    func noteDeclinedChallenge() {
        state.withLock { $0.declinedChallenge = true }
    }

    /// Finishes from the task's completion.
    func complete(task: URLSessionTask, error: (any Error)?) {
        let (body, declinedChallenge, downloadedFile) = state.withLock { state in
            defer { state.downloadedFile = nil }
            return (state.body, state.declinedChallenge, state.downloadedFile)
        }
        let httpResponse = task.response as? HTTPURLResponse
        if error == nil, let downloadedFile, let httpResponse {
            // Reading a large file back must not hold up the session's delegate queue.
            DispatchQueue.global().async { self.completeDownload(downloadedFile, response: httpResponse) }
            return
        }
        if let downloadedFile { try? FileManager.default.removeItem(at: downloadedFile) }
        if let error {
            let urlError = error as? URLError
            if urlError?.code == .cancelled, declinedChallenge, let httpResponse {
                finish(.success(Self.makeResponse(httpResponse, body: body, request: request)))
            } else if let urlError {
                finish(.failure(APIError(urlError: urlError, request: request)))
            } else {
                finish(
                    .failure(
                        APIError(.transport(.other), message: "\(error)", request: request, underlyingError: error)))
            }
        } else if let httpResponse {
            finish(.success(Self.makeResponse(httpResponse, body: body, request: request)))
        } else {
            finish(
                .failure(
                    APIError(.transport(.badResponse), message: "the reply was not an HTTP response", request: request))
            )
        }
    }

    static func makeResponse(_ response: HTTPURLResponse, body: Data, request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            let name = HTTPHeaders.Name("\(name)")
            // URLSession joins Set-Cookie fields with ", ": one field a cookie again, where unambiguous.
            let values = name == .setCookie ? SetCookieSplitter.split("\(value)") : ["\(value)"]
            for value in values { headers.add(name, value) }
        }
        return HTTPResponse(
            status: HTTPStatus(code: response.statusCode), headers: headers, body: body,
            url: response.url ?? request.url
        )
    }

    private func switchingError(_ length: Int64) -> APIError {
        APIError(
            .transport(.connectionLost),
            message: "a body of \(length) bytes is fetched again with a download task, which keeps memory bounded",
            request: request)
    }

    func tooLargeError() -> APIError {
        ResponseFraming.tooLargeError(limit: maximumResponseSize, request: request)
    }
}
