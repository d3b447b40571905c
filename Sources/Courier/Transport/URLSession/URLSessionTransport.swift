import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: one `URLSession`, made correct on Linux as well as on Apple platforms.
///
/// On top of what URLSession does it:
/// - follows redirects itself, under one ``RedirectPolicy`` on every platform (Linux's URLSession
///   would carry `Authorization`, cookies and API keys to another origin);
/// - enforces a whole-exchange deadline of its own (URLSession's timeout is an idle timeout, in
///   whole seconds on Linux, which a slowly dripping body can outlive forever);
/// - never hangs on a `401` with `WWW-Authenticate` (Linux's URLSession waits forever for a
///   credential): the challenge is declined and the 401 comes back as a response;
/// - stops reading a body larger than ``Configuration/maximumResponseSize`` (decompressed bytes);
/// - cancels the underlying task as soon as the calling Swift task is cancelled, and reports
///   `CancellationError`.
///
/// URLSession joins a response's `Set-Cookie` fields with `", "`; this transport splits them back
/// where a field can end (after a cookie's `name=value` or a complete known attribute, never inside
/// a closed quote or after an unknown attribute). A joined field stays ambiguous: an unquoted
/// `, name=` in a value or `Path`, or after a known attribute (`a=1; SameSite=Lax, b=y`), is split
/// as if the server had sent two fields. Where cookies matter, use CurlTransport, which hands over
/// every field as sent (see <doc:KeepingCookies>).
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .init(timeout: .seconds(10)))
/// let client = APIClient(baseURL: url, transport: transport)
/// ```
public final class URLSessionTransport: HTTPStreamingTransport {
    /// The transport's settings.
    public struct Configuration: Sendable {
        /// The longest one exchange may take, redirects included, unless the request sets its own
        /// ``HTTPRequest/timeout``. Sub-second values work. 60 seconds by default.
        public var timeout: Duration
        /// The longest the connection may stay silent (URLSession's `timeoutInterval`; whole seconds,
        /// rounded up). 60 seconds by default.
        public var idleTimeout: Duration
        /// How redirects are followed.
        public var redirects: RedirectPolicy
        /// The largest response body, after decompression, that is read into memory; a larger one
        /// fails with ``TransportFailure/responseTooLarge``. 100 MiB by default.
        public var maximumResponseSize: Int
        /// The largest stream body (``HTTPBody/stream(_:)``) written to a temporary file before it
        /// is sent; a larger one fails the call with ``TransportFailure/other`` before its request
        /// goes out. URLSession cannot read a live stream without blocking its queue, so the stream
        /// is collected on disk first (memory stays flat) and sent with its exact `Content-Length`.
        /// 1 GiB by default. ``CurlTransport`` streams it as it comes, with no such limit.
        public var maximumSpooledStreamSize: Int64
        /// The certificate shown to a server that asks for one (mutual TLS), or `nil`.
        ///
        /// On Apple platforms, a ``ClientCertificate/pkcs12(_:passphrase:)`` bundle answers the
        /// session's client-certificate challenge (a PEM certificate is not supported there: the
        /// Security framework imports no PEM key outside the keychain; convert it with
        /// `openssl pkcs12 -export`). On Linux, FoundationNetworking cannot present a client
        /// certificate at all (it marks `NSURLAuthenticationMethodClientCertificate` unavailable:
        /// "does not currently support certificate authentication"), so every request fails at once
        /// with ``TransportFailure/clientCertificateRejected``, never silently without it: use
        /// ``CurlTransport`` there.
        public var clientCertificate: ClientCertificate?

        /// Creates a configuration.
        public init(
            timeout: Duration = .seconds(60),
            idleTimeout: Duration = .seconds(60),
            redirects: RedirectPolicy = .default,
            maximumResponseSize: Int = 100 * 1024 * 1024,
            maximumSpooledStreamSize: Int64 = 1 << 30,
            clientCertificate: ClientCertificate? = nil
        ) {
            self.timeout = timeout
            self.idleTimeout = idleTimeout
            self.redirects = redirects
            self.maximumResponseSize = maximumResponseSize
            self.maximumSpooledStreamSize = maximumSpooledStreamSize
            self.clientCertificate = clientCertificate
        }
    }

    /// The transport's settings.
    public let configuration: Configuration
    /// The session; also opens WebSockets' stream tasks on Apple platforms (URLSessionTransport+WebSocket).
    let session: URLSession
    private let delegate: SessionDelegate
    /// Where tasks are made and resumed: off the caller's threads, and one at a time (resuming
    /// them from many threads at once makes FoundationNetworking drop keep-alive connections:
    /// about 290 new connections per 4,000 requests at 16 in flight, against 2–4 from one queue).
    private let taskQueue = DispatchQueue(label: "Courier.URLSessionTransport.tasks")

    /// Creates a transport with its own `URLSession`.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, redirects and size limit.
    ///   - sessionConfiguration: The session's settings; by default an ephemeral configuration
    ///     without `URLCache` (caching belongs to Courier's own cache middleware). Its
    ///     `protocolClasses` can carry a `URLProtocol` for tests. Its cookie storage is always
    ///     removed: the transport never stores or sends a cookie of its own accord.
    public init(configuration: Configuration = Configuration(), sessionConfiguration: URLSessionConfiguration? = nil) {
        self.configuration = configuration
        let sessionConfiguration = sessionConfiguration ?? Self.defaultSessionConfiguration()
        // No implicit cookie jar, even in a configuration passed in: cookies a session keeps by
        // itself would reach requests the redirect policy stripped and other clients sharing the
        // transport, unseen by the cache, deduplication and redaction.
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        delegate = SessionDelegate(clientCertificate: configuration.clientCertificate)
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: delegate.queue)
    }

    deinit {
        // After every task the transport queued is made: making one on an invalidated session is
        // a fatal error in Foundation, and a call can end (its deadline) before its task is made.
        let session = self.session
        taskQueue.async { session.finishTasksAndInvalidate() }
    }

    private static func defaultSessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Sends the request, following redirects by ``Configuration/redirects``.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/transport(_:)``, or `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, consumer: nil)
    }

    /// Sends the request, following redirects, and hands the final response's body to `consumer`
    /// as it arrives (when it accepts it): memory stays bounded whatever the body's size.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/transport(_:)``, the consumer's own error,
    ///   or `CancellationError`.
    package func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer) async throws
        -> HTTPResponse
    {
        try await send(request, consumer: consumer)
    }

    private func send(_ request: HTTPRequest, consumer: (any ResponseBodyConsumer)?) async throws -> HTTPResponse {
        if request.method == .get, request.body != nil {
            // Apple's URLSession refuses a GET body and FoundationNetworking mangles it: say so
            // before any I/O rather than send something else. CurlTransport sends it as asked.
            throw APIError(
                .invalidRequest,
                message: "URLSessionTransport cannot send a GET request with a body; use CurlTransport or POST",
                request: request)
        }
        if UnixSocketURL.isSocketScheme(request.url.scheme?.lowercased()) {
            // URLSession has no socket path option (FoundationNetworking neither): refuse before any I/O.
            throw APIError(
                .invalidRequest,
                message: "URLSessionTransport cannot reach a Unix socket (http+unix URL); use CurlTransport",
                request: request)
        }
        #if canImport(FoundationNetworking)
            if configuration.clientCertificate != nil {
                throw APIError(
                    .transport(.clientCertificateRejected),
                    message: "URLSessionTransport cannot present a client certificate on Linux (FoundationNetworking"
                        + " does not support certificate authentication); use CurlTransport",
                    request: request)
            }
        #endif
        let timeout = request.timeout ?? configuration.timeout
        return try await RedirectLoop.send(request, policy: configuration.redirects, timeout: timeout) {
            current, deadline, bodyFile in
            var bodyFile = bodyFile
            if case .stream(let stream) = current.body {
                // Collected on disk first (see BodyStreamSpool), then streamed as a body file.
                bodyFile = try await BodyStreamSpool.spool(
                    stream, of: current, limit: configuration.maximumSpooledStreamSize,
                    idleTimeout: current.idleTimeout ?? configuration.idleTimeout, deadline: deadline)
            }
            return try await exchange(
                current, deadline: deadline, bodyFile: bodyFile, timeout: timeout, consumer: consumer)
        }
    }

    /// One request and its response, no redirects followed.
    private func exchange(
        _ request: HTTPRequest,
        deadline: ContinuousClock.Instant,
        bodyFile: BodyFile?,
        timeout: Duration,
        consumer: (any ResponseBodyConsumer)?
    ) async throws -> HTTPResponse {
        let remaining = deadline - ContinuousClock.now
        let idleTimeout = request.idleTimeout ?? configuration.idleTimeout
        // URLSession's idle timer runs on while a task is suspended for a slow reader: a stream
        // keeps its own, and URLSession's is pushed out of the way.
        let ownsIdleTimeout = consumer?.mayPauseForLong == true
        // URLSession writes a download task's body to disk at the disk's pace; the consumer reads it after.
        let buffersOnDisk = consumer?.prefersDiskBuffering == true && request.body == nil
        let exchange = URLSessionExchange(
            request: request, timeout: timeout, maximumResponseSize: configuration.maximumResponseSize,
            consumer: consumer, isDownloadTask: buffersOnDisk,
            uploadMeter: request.body == nil ? nil : CallContext.current.uploadMeter, bodyFile: bodyFile
        )
        let urlRequest = makeURLRequest(
            request, idleTimeout: ownsIdleTimeout ? max(remaining, idleTimeout) + .seconds(60) : idleTimeout,
            bodyLength: bodyFile?.length)
        let (session, delegate, taskQueue) = (self.session, self.delegate, self.taskQueue)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard exchange.start(continuation) else { return }
                exchange.armDeadline(after: remaining)
                if ownsIdleTimeout { exchange.armIdleTimeout(idleTimeout) }
                // Making, resuming and cancelling tasks wait for URLSession's own queue, which a flood
                // of callbacks can keep busy for seconds: never on the caller's (cooperative) thread.
                taskQueue.async {
                    // A body file is streamed (BodyFileStream), from the stream the delegate hands over
                    // when URLSession asks for it (needNewBodyStream).
                    let task: URLSessionTask =
                        if bodyFile != nil {
                            session.uploadTask(withStreamedRequest: urlRequest)
                        } else if buffersOnDisk {
                            session.downloadTask(with: urlRequest)
                        } else {
                            session.dataTask(with: urlRequest)
                        }
                    delegate.register(exchange, for: task)
                    if exchange.attach(task) {
                        task.resume()
                    } else {
                        delegate.unregister(task)
                        task.cancel()
                    }
                }
            }
        } onCancel: {
            exchange.finish(.failure(CancellationError()))
            exchange.cancelTask()
        }
    }

    private func makeURLRequest(
        _ request: HTTPRequest, idleTimeout: Duration, bodyLength: Int64?
    ) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        // Only the setter counts on Linux, and it truncates to whole seconds (below 1 s it fires at
        // once): round up, and leave sub-second precision to the deadline.
        urlRequest.timeoutInterval = min(Double(Int32.max), max(1, idleTimeout.timeInterval.rounded(.up)))
        // URLSession sets Content-Length from the body itself; a second one would be a framing error.
        for field in request.headers where field.name != .contentLength {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        if case .data(let data) = request.body {
            urlRequest.httpBody = data
        }
        if let bodyLength {
            frameStream(length: bodyLength, in: &urlRequest)
        }
        return urlRequest
    }
}

extension URLSessionTransport {
    /// Frames a streamed body file by its `Content-Length`. (URLSession's own file upload,
    /// `uploadTask(with:fromFile:)`, announces the size it finds and then reads the path to its end:
    /// bytes appended meanwhile went out after the body, where a keep-alive server read them as a
    /// request of their own.)
    private func frameStream(length: Int64, in urlRequest: inout URLRequest) {
        urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length")
        #if canImport(FoundationNetworking)
            // FoundationNetworking hands a stream to libcurl as a body of unknown length, and libcurl
            // then adds `Transfer-Encoding: chunked` beside the Content-Length: two framings, which
            // servers and proxies may read differently. A blank Transfer-Encoding turns chunking off
            // and is not sent (libcurl drops custom headers whose value is blank).
            urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
            // FoundationNetworking also gives a streamed POST without a Content-Type one of its own
            // (`application/x-www-form-urlencoded`): a blank one keeps the request as it was asked.
            if urlRequest.value(forHTTPHeaderField: "Content-Type") == nil {
                urlRequest.setValue(" ", forHTTPHeaderField: "Content-Type")
            }
            // And a streamed upload task asks for `Expect: 100-continue`, which costs a second's wait
            // on servers that ignore it.
            if urlRequest.value(forHTTPHeaderField: "Expect") == nil {
                urlRequest.setValue(" ", forHTTPHeaderField: "Expect")
            }
        #endif
    }
}

extension URLSessionTransport: HTTPDiskBufferingTransport {
    /// 16 MiB: URLSession queues every piece of a data task in memory.
    package var largestStreamedBody: Int64 { URLSessionExchange.largestStreamedBody }
}

extension URLSessionTransport: HTTPTimeoutDefaulting {
    package var defaultTimeout: Duration { configuration.timeout }
}
