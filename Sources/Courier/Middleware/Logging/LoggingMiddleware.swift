import Foundation

/// Logs each exchange through a ``LogSink``, with every secret redacted; silent without one.
///
/// ```swift
/// let logging = LoggingMiddleware(sink: StandardErrorLogSink(minimumLevel: .info))
/// // [courier] info: GET https://api.themoviedb.org/3/movie/popular?api_key=REDACTED&page=1 → 200 OK in 84.2 ms, 5120 bytes (attempt 1)
/// ```
///
/// One line per exchange at ``LogLevel/info`` (``LogLevel/warning`` for 4xx and 5xx,
/// ``LogLevel/error`` for failures without a response); headers and, when asked, bodies at
/// ``LogLevel/debug``. Placed last in the chain it logs every exchange that reaches the network,
/// retries and replays included, with the credentials the earlier middlewares added (redacted).
public struct LoggingMiddleware: Middleware {
    /// What the middleware logs.
    public struct Configuration: Sendable {
        /// Whether request and response headers are logged (at debug level).
        public var logsHeaders: Bool
        /// Whether request and response bodies are logged (at debug level).
        public var logsBodies: Bool
        /// The most bytes of each body that are logged.
        public var maximumBodyBytes: Int
        /// What is hidden.
        public var redactor: Redactor

        /// Creates a configuration.
        public init(
            logsHeaders: Bool = true, logsBodies: Bool = false, maximumBodyBytes: Int = 4096,
            redactor: Redactor = .standard
        ) {
            self.logsHeaders = logsHeaders
            self.logsBodies = logsBodies
            self.maximumBodyBytes = maximumBodyBytes
            self.redactor = redactor
        }
    }

    private let sink: (any LogSink)?
    private let configuration: Configuration

    /// Creates a middleware that logs to `sink`, or does nothing when it is `nil`.
    public init(sink: (any LogSink)?, configuration: Configuration = Configuration()) {
        self.sink = sink
        self.configuration = configuration
    }

    /// Passes the request on and logs how the exchange went.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let sink else { return try await next(request) }
        let redactor = configuration.redactor
        let target = "\(request.method) \(Redaction.redact(urlOf: request, extraNames: redactor.additionalNames))"
        let detailed = sink.minimumLevel <= .debug
        if detailed {
            logDetails(
                "request", headers: request.headers, body: request.body.flatMap(\.inlineData), request: request,
                to: sink
            )
        }
        let start = ContinuousClock.now
        do {
            let response = try await next(request)
            let level: LogLevel = response.status.code >= 400 ? .warning : .info
            if sink.minimumLevel <= level {
                // A streamed body went to its consumer (a file, a stream's reader), not into the response.
                let size = response.streamedBodyBytes.map { "\($0) bytes streamed" }
                let line =
                    "\(target) → \(response.status) in \(Self.milliseconds(since: start)), "
                    + "\(response.body.isEmpty ? size ?? "0 bytes" : "\(response.body.count) bytes")\(attemptNote)"
                sink.log(level, redactor.scrub(line, secretsOf: request))
            }
            if detailed {
                logDetails("response", headers: response.headers, body: response.body, request: request, to: sink)
            }
            return response
        } catch {
            let cancelled = error is CancellationError
            let level: LogLevel = cancelled ? .debug : .error
            if sink.minimumLevel <= level {
                let what = cancelled ? "\(target) cancelled" : Self.sentence(for: error, target: target)
                let line = "\(what) after \(Self.milliseconds(since: start))\(attemptNote)"
                sink.log(level, redactor.scrub(line, secretsOf: request))
            }
            throw error
        }
    }

    private var attemptNote: String {
        CallContext.current.record.map { " (attempt \($0.attempts))" } ?? ""
    }

    private func logDetails(
        _ label: String, headers: HTTPHeaders, body: Data?, request: HTTPRequest, to sink: any LogSink
    ) {
        let redactor = configuration.redactor
        if configuration.logsHeaders, !headers.isEmpty {
            sink.log(.debug, "\(label) headers: " + redactor.redact(headers).joined(separator: "; "))
        }
        if configuration.logsBodies, let body, !body.isEmpty {
            let text = redactor.redact(
                body: body, contentType: headers[.contentType], limit: configuration.maximumBodyBytes,
                secretsOf: request
            )
            sink.log(.debug, "\(label) body: \(text)")
        }
    }

    /// An ``APIError``'s own sentence (which names the request), or the target and the error.
    private static func sentence(for error: any Error, target: String) -> String {
        if let error = error as? APIError, error.request != nil { return error.description }
        return "\(target) failed: \(error)"
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = (ContinuousClock.now - start).timeInterval * 1000
        return String(format: "%.1f ms", elapsed)
    }
}

extension HTTPBody {
    /// The bytes of an in-memory body; `nil` for a file.
    fileprivate var inlineData: Data? {
        if case .data(let data) = self { return data }
        return nil
    }
}
