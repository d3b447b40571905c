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
    private let timeout: Duration
    private let maximumResponseSize: Int

    private let lock = NSLock()
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?
    private var earlyResult: Result<HTTPResponse, any Error>?
    private var isFinished = false
    private var body = Data()
    private var deadlineTimer: DispatchWorkItem?
    private var declinedChallenge = false

    init(request: HTTPRequest, timeout: Duration, maximumResponseSize: Int) {
        self.request = request
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
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

    /// Fails the exchange as timed out when `delay` passes first, and calls `cancelTask`.
    func armDeadline(after delay: Duration, cancelTask: @escaping @Sendable () -> Void) {
        let timer = DispatchWorkItem { [self] in
            finish(.failure(Self.timeoutError(request, timeout: timeout)))
            cancelTask()
        }
        lock.lock()
        let finished = isFinished
        if !finished { deadlineTimer = timer }
        lock.unlock()
        guard !finished else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.timeInterval, execute: timer)
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
        let timer = deadlineTimer
        deadlineTimer = nil
        body = Data()
        lock.unlock()
        timer?.cancel()
        continuation?.resume(with: result)
    }

    /// Checks the announced size; `false` (and the exchange failed) when it is over the limit.
    func receive(_ response: URLResponse) -> Bool {
        if response.expectedContentLength > Int64(maximumResponseSize) {
            finish(.failure(tooLargeError()))
            return false
        }
        return true
    }

    /// Appends body bytes; `false` (and the exchange failed) once the body passes the limit.
    func append(_ data: Data) -> Bool {
        lock.lock()
        guard !isFinished else {
            lock.unlock()
            return false
        }
        let fits = body.count + data.count <= maximumResponseSize
        if fits { body.append(data) }
        lock.unlock()
        if !fits { finish(.failure(tooLargeError())) }
        return fits
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
        lock.unlock()
        let httpResponse = task.response as? HTTPURLResponse
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
            headers.add(.init("\(name)"), "\(value)")
        }
        return HTTPResponse(
            status: HTTPStatus(code: response.statusCode), headers: headers, body: body,
            url: response.url ?? request.url
        )
    }

    static func timeoutError(_ request: HTTPRequest, timeout: Duration) -> APIError {
        APIError(
            .transport(.deadlineExceeded), message: "no complete response within \(DurationText.seconds(timeout))",
            request: request
        )
    }

    private func tooLargeError() -> APIError {
        APIError(
            .transport(.responseTooLarge),
            message: "the response body is larger than the limit of \(maximumResponseSize) bytes", request: request
        )
    }
}

/// Durations as people read them: `0.5 seconds`, `1 second`.
enum DurationText {
    static func seconds(_ duration: Duration) -> String {
        let value = duration.timeInterval
        let text = value == value.rounded() ? String(Int(value)) : String(format: "%.3g", value)
        return "\(text) second\(value == 1 ? "" : "s")"
    }
}

extension Duration {
    /// The duration in seconds, as Foundation and Dispatch take it.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
