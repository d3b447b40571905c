import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The state of one URLSession data task: the body so far, and the continuation to resume exactly
/// once, by whichever comes first: completion, the deadline, the size limit, or cancellation.
///
/// `@unchecked Sendable`: every mutable property is read and written only while `lock` is held,
/// and the continuation is resumed outside the lock after being taken out under it.
final class URLSessionExchange: @unchecked Sendable {
    let request: HTTPRequest
    let timeout: Duration
    let maximumResponseSize: Int

    let lock = NSLock()
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?
    private var earlyResult: Result<HTTPResponse, any Error>?
    var isFinished = false
    var body = Data()
    private var deadlineTimer: UInt64?
    var task: URLSessionTask?
    private var declinedChallenge = false
    let consumer: (any ResponseBodyConsumer)?
    /// Whether the consumer took the body: pieces go to it, not into `body`.
    var isStreaming = false
    /// Whether the head was offered to the consumer yet (download tasks learn it late).
    var headOffered = false
    /// Whether URLSession buffers this exchange's body on disk (a download task).
    let isDownloadTask: Bool
    /// The largest body a data task streams; a larger one is fetched again with a download task.
    static let largestStreamedBody: Int64 = 16 << 20
    /// Where a download task's body was kept, until it is handed over.
    var downloadedFile: URL?
    /// Told how much of the request body went out, when the caller watches upload progress.
    let uploadMeter: UploadMeter?
    /// The request's body file, opened for this exchange (see ``BodyFile``).
    let bodyFile: BodyFile?
    /// Flow control: whether the task is suspended because the consumer has no room, and whether
    /// room came back while the exchange was deciding to suspend it.
    private var isPausedForConsumer = false
    private var roomCameBack = false
    /// The exchange's own idle timeout, when URLSession's cannot be used (it runs on while the task
    /// is suspended for the consumer): when a byte last moved, and the timer that looks.
    private var lastActivity = ContinuousClock.now
    private var idleTimer: UInt64?
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
        lock.lock()
        if let earlyResult {
            lock.unlock()
            continuation.resume(with: earlyResult)
            return false
        }
        self.continuation = continuation
        lock.unlock()
        return true
    }

    /// Fails the exchange as timed out when `delay` passes first, and cancels its task. The timer
    /// runs on ``DeadlineClock``'s own thread, so it fires on time however busy URLSession is.
    func armDeadline(after delay: Duration) {
        let timer = DeadlineClock.shared.schedule(after: delay) { [self] in
            finish(.failure(RedirectLoop.timeoutError(request, timeout: timeout)))
            cancelTask()
        }
        lock.lock()
        let finished = isFinished
        if !finished { deadlineTimer = timer }
        lock.unlock()
        if finished { DeadlineClock.shared.cancel(timer) }
    }

    /// Fails the exchange as timed out when no byte moves for `idleTimeout` while the consumer is
    /// reading: for streams, whose task URLSession would time out while it is suspended.
    func armIdleTimeout(_ idleTimeout: Duration, after delay: Duration? = nil) {
        let timer = DeadlineClock.shared.schedule(after: delay ?? idleTimeout) { [weak self] in
            self?.checkIdle(idleTimeout)
        }
        lock.lock()
        let finished = isFinished
        if !finished { idleTimer = timer }
        lock.unlock()
        if finished { DeadlineClock.shared.cancel(timer) }
    }

    private func checkIdle(_ idleTimeout: Duration) {
        lock.lock()
        let finished = isFinished
        let quiet = ContinuousClock.now - lastActivity
        if isPausedForConsumer { lastActivity = .now }
        let paused = isPausedForConsumer
        lock.unlock()
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
        lock.lock()
        defer { lock.unlock() }
        guard !isFinished else { return false }
        self.task = task
        if isDownloadTask { watchDownload(task) }
        return true
    }

    /// Cancels the task, if one was attached, off the calling thread: URLSession's `cancel()` waits
    /// for the session's own queue, which a flood of callbacks can keep busy for seconds.
    func cancelTask() {
        lock.lock()
        let task = self.task
        self.task = nil
        lock.unlock()
        if let task { DispatchQueue.global().async { task.cancel() } }
    }

    /// Finishes the exchange with `result` unless it has finished already.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        lock.lock()
        guard !isFinished else {
            lock.unlock()
            return
        }
        isFinished = true
        let continuation = self.continuation
        self.continuation = nil
        if continuation == nil { earlyResult = result }
        let timers = [deadlineTimer, idleTimer].compactMap { $0 }
        deadlineTimer = nil
        idleTimer = nil
        body = Data()
        lock.unlock()
        for timer in timers { DeadlineClock.shared.cancel(timer) }
        continuation?.resume(with: result)
    }

    /// Offers the head to the consumer, if any (not for a redirect, which is followed instead), and
    /// checks the announced size of a body kept in memory; `false` (and the exchange failed) when
    /// the consumer threw or the body is over the limit.
    func receive(_ response: URLResponse) -> Bool {
        lock.lock()
        lastActivity = .now
        lock.unlock()
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
                lock.lock()
                isStreaming = streams
                let buffersOnDisk = isDownloadTask
                lock.unlock()
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
        lock.lock()
        guard !isFinished else {
            lock.unlock()
            return false
        }
        lastActivity = .now
        if isStreaming, let consumer {
            roomCameBack = false
            lock.unlock()
            guard consumerAccepts({ try consumer.receive(data) }) else { return false }
            if Self.canPause, !consumer.hasRoom(orWhenRoom: { [weak self] in self?.consumerHasRoom() }) {
                pauseForConsumer()
            }
            return true
        }
        let fits = body.count + data.count <= maximumResponseSize
        if fits { body.append(data) }
        lock.unlock()
        if !fits { finish(.failure(tooLargeError())) }
        return fits
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
        lock.lock()
        defer { lock.unlock() }
        guard !roomCameBack, !isFinished, let task else { return }
        guard !isPausedForConsumer else { return }
        isPausedForConsumer = true
        Self.flowQueue.async { task.suspend() }
    }

    /// The consumer has room again: resume the task if it was suspended for it.
    private func consumerHasRoom() {
        lock.lock()
        defer { lock.unlock() }
        guard isPausedForConsumer else {
            roomCameBack = true
            return
        }
        isPausedForConsumer = false
        lastActivity = .now
        if let task { Self.flowQueue.async { task.resume() } }
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
        lock.lock()
        declinedChallenge = true
        lock.unlock()
    }

    /// Finishes from the task's completion.
    func complete(task: URLSessionTask, error: (any Error)?) {
        lock.lock()
        let body = self.body
        let declinedChallenge = self.declinedChallenge
        let downloadedFile = self.downloadedFile
        self.downloadedFile = nil
        lock.unlock()
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
