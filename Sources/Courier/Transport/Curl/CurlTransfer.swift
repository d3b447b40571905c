import CCourierCurl
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request on the libcurl loop: its options, the response as it arrives, and the continuation
/// resumed exactly once, by completion, failure or cancellation, whichever comes first.
///
/// `@unchecked Sendable`: everything but `outcome` is read and written only on the loop thread
/// (libcurl calls the callbacks there, from `curl_multi_perform`), after the caller's thread hands
/// the transfer over through the loop's locked inbox; `outcome` is behind its own lock.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    /// The time left for this exchange when it was handed to the loop (the redirect loop's deadline).
    let budget: Duration
    private let configuration: CurlTransport.Configuration
    private let consumer: (any ResponseBodyConsumer)?

    // MARK: Loop thread only

    /// The easy handle running this transfer, while it runs.
    var easy: OpaquePointer?
    /// When the loop added the transfer, and when a byte last moved.
    private(set) var started = ContinuousClock.now
    private(set) var lastActivity = ContinuousClock.now
    private var head = ResponseHeadParser()
    /// Whether the final head has been seen and acted on.
    private var headHandled = false
    /// Whether the consumer takes the body piece by piece.
    private var isStreaming = false
    private var body = Data()
    private var headerList: OpaquePointer?
    private var upload: CurlUpload?
    /// Why a callback stopped the transfer, to report instead of libcurl's generic code.
    private var stopReason: (any Error)?

    // MARK: Any thread

    private enum Outcome {
        case waiting
        case running(CheckedContinuation<HTTPResponse, any Error>)
        case finished(Result<HTTPResponse, any Error>?)
    }
    private let outcome = Locked(Outcome.waiting)

    init(
        request: HTTPRequest, budget: Duration, configuration: CurlTransport.Configuration,
        consumer: (any ResponseBodyConsumer)?
    ) {
        self.request = request
        self.budget = budget
        self.configuration = configuration
        self.consumer = consumer
    }

    // MARK: Completion, from any thread

    /// Stores the continuation; `false` when the transfer finished already (cancelled before it
    /// started), in which case the continuation has been resumed.
    func begin(_ continuation: CheckedContinuation<HTTPResponse, any Error>) -> Bool {
        let early: Result<HTTPResponse, any Error>?? = outcome.withLock { outcome in
            if case .finished(let result) = outcome {
                outcome = .finished(nil)
                return .some(result)
            }
            outcome = .running(continuation)
            return .none
        }
        guard let early else { return true }
        if let early { continuation.resume(with: early) }
        return false
    }

    /// Finishes with `result` unless finished already; `true` when this call finished it.
    @discardableResult
    func finish(_ result: Result<HTTPResponse, any Error>) -> Bool {
        let continuation: CheckedContinuation<HTTPResponse, any Error>?? = outcome.withLock { outcome in
            switch outcome {
            case .finished:
                return .none
            case .waiting:
                outcome = .finished(result)
                return .some(nil)
            case .running(let continuation):
                outcome = .finished(nil)
                return .some(continuation)
            }
        }
        guard let continuation else { return false }
        continuation?.resume(with: result)
        return true
    }

    var isFinished: Bool {
        outcome.withLock { outcome in
            if case .finished = outcome { return true }
            return false
        }
    }

    // MARK: Set-up, on the loop thread

    /// Sets the easy handle's options for this request; an error when the request cannot be sent.
    func configure(_ easy: OpaquePointer, errorBuffer: UnsafeMutablePointer<CChar>) throws {
        started = ContinuousClock.now
        lastActivity = started
        let context = Unmanaged.passUnretained(self).toOpaque()
        var failed = false
        func check(_ code: Int32) {
            if code != 0 { failed = true }
        }
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_ERRORBUFFER), errorBuffer))
        errorBuffer.pointee = 0
        check(request.url.absoluteString.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_URL), $0) })
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOSIGNAL), 1))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_FOLLOWLOCATION), 0))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_PIPEWAIT), 1))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TCP_KEEPALIVE), 1))
        check(
            ccurl_easy_setopt_long(
                easy, Int32(CCURLOPT_HTTP_VERSION),
                configuration.prefersHTTP2 ? CCURL_HTTP_VERSION_2TLS : CCURL_HTTP_VERSION_1_1))
        // Every encoding this libcurl decodes; the size limit counts decoded bytes.
        check("".withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_ACCEPT_ENCODING), $0) })
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TIMEOUT_MS), Self.milliseconds(budget)))
        check(
            ccurl_easy_setopt_long(
                easy, Int32(CCURLOPT_CONNECTTIMEOUT_MS), Self.milliseconds(min(budget, configuration.connectTimeout))))
        configureTLS(easy, check: check)
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_HEADERFUNCTION), curlHeaderCallback))
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_HEADERDATA), context))
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), curlWriteCallback))
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_WRITEDATA), context))
        try configureMethodAndBody(easy, context: context, check: check)
        configureHeaders(easy, check: check)
        if failed {
            throw APIError(.transport(.other), message: "libcurl refused an option for this request", request: request)
        }
    }

    private func configureTLS(_ easy: OpaquePointer, check: (Int32) -> Void) {
        let tls = configuration.tls
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_SSL_VERIFYPEER), tls.verifiesCertificates ? 1 : 0))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_SSL_VERIFYHOST), tls.verifiesCertificates ? 2 : 0))
        if let authorities = tls.certificateAuthorities {
            check(authorities.path.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_CAINFO), $0) })
        }
        if !tls.pinnedPublicKeyHashes.isEmpty {
            let pins = tls.pinnedPublicKeyHashes.map { "sha256//\($0)" }.joined(separator: ";")
            check(pins.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PINNEDPUBLICKEY), $0) })
        }
    }

    private func configureMethodAndBody(
        _ easy: OpaquePointer, context: UnsafeMutableRawPointer, check: (Int32) -> Void
    ) throws {
        let method = request.method
        let sendsBody = request.body != nil || [.post, .put, .patch].contains(method)
        if sendsBody {
            let upload = try CurlUpload(request.body, request: request)
            self.upload = upload
            // UPLOAD streams the body through the read callback with its Content-Length; the
            // method is then whatever CUSTOMREQUEST says.
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_UPLOAD), 1))
            check(ccurl_easy_setopt_int64(easy, Int32(CCURLOPT_INFILESIZE_LARGE), upload.length))
            check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_READFUNCTION), curlReadCallback))
            check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_READDATA), context))
            check(ccurl_easy_setopt_seek_callback(easy, curlSeekCallback))
            check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_SEEKDATA), context))
        } else if method == .head {
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOBODY), 1))
        } else {
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_HTTPGET), 1))
        }
        if method != .get && method != .head {
            check(method.rawValue.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_CUSTOMREQUEST), $0) })
        }
    }

    private func configureHeaders(_ easy: OpaquePointer, check: (Int32) -> Void) {
        var list: OpaquePointer?
        func append(_ line: String) {
            list = line.withCString { ccurl_slist_append(list, $0) }
        }
        for field in request.headers where field.name != .contentLength {
            // "Name:" would remove a header libcurl adds; "Name;" sends it empty.
            append(field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)")
        }
        if !request.headers.contains("Expect") {
            // No 100-continue round trip (and its one-second wait on servers that never answer it).
            append("Expect:")
        }
        headerList = list
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_HTTPHEADER), UnsafeRawPointer(list)))
    }

    /// Frees what the transfer allocated for libcurl; the handle no longer refers to it afterwards.
    func releaseResources() {
        if let headerList { ccurl_slist_free_all(headerList) }
        headerList = nil
        upload = nil
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let total = seconds.multipliedReportingOverflow(by: 1000)
        guard !total.overflow, seconds >= 0 else { return seconds < 0 ? 1 : Int.max / 2 }
        return max(1, Int(total.partialValue) + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    // MARK: Callbacks, on the loop thread

    /// One header line; `false` stops the transfer.
    fileprivate func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        lastActivity = ContinuousClock.now
        do {
            try head.consume(line)
        } catch {
            return stop(APIError(.transport(.badResponse), message: error.reason, request: request))
        }
        guard head.isComplete, !headHandled, let status = head.status else { return true }
        headHandled = true
        return headArrived(status: status, headers: head.headers)
    }

    private func headArrived(status: Int, headers: HTTPHeaders) -> Bool {
        let lengths = Set(
            headers.values(for: .contentLength).flatMap { $0.split(separator: ",") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        if lengths.count > 1 {
            // RFC 9112 §6.3: differing Content-Length values make the framing unknowable.
            return stop(
                APIError(
                    .transport(.badResponse),
                    message:
                        "the response has conflicting Content-Length values (\(lengths.sorted().joined(separator: ", ")))",
                    request: request))
        }
        let isEncoded = headers[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
        let announced = lengths.first.flatMap { Int($0) }
        let isRedirect = [301, 302, 303, 307, 308].contains(status) && headers.contains(.location)
        if let consumer, !isRedirect {
            do {
                isStreaming = try consumer.responseHeadArrived(
                    HTTPResponse(status: HTTPStatus(code: status), headers: headers, url: request.url))
            } catch {
                return stop(error)
            }
        }
        if !isStreaming, let announced, !isEncoded {
            guard announced <= configuration.maximumResponseSize else { return stop(tooLargeError()) }
            body.reserveCapacity(announced)
        }
        return true
    }

    /// Body bytes (decoded); `false` stops the transfer.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = ContinuousClock.now
        if isStreaming, let consumer {
            do {
                try consumer.receive(Data(bytes))
            } catch {
                return stop(error)
            }
            return true
        }
        guard body.count + bytes.count <= configuration.maximumResponseSize else { return stop(tooLargeError()) }
        body.append(contentsOf: bytes)
        return true
    }

    /// Fills libcurl's buffer with the next request body bytes: how many, 0 at the end, or
    /// `CURL_READFUNC_ABORT`.
    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        lastActivity = ContinuousClock.now
        guard let upload else { return 0 }
        do {
            return try upload.read(into: buffer)
        } catch {
            _ = stop(error)
            return Int(CCURL_READFUNC_ABORT)
        }
    }

    /// Rewinds the request body (libcurl resends it when a reused connection turns out dead).
    fileprivate func seekBody(to offset: Int64) -> Bool {
        (try? upload?.seek(to: offset)) != nil
    }

    private func stop(_ reason: any Error) -> Bool {
        if stopReason == nil { stopReason = reason }
        return false
    }

    private func tooLargeError() -> APIError {
        APIError(
            .transport(.responseTooLarge),
            message: "the response body is larger than the limit of \(configuration.maximumResponseSize) bytes",
            request: request)
    }

    // MARK: The end, on the loop thread

    /// The result of libcurl's `code` for this transfer.
    func result(code: Int32, errorBuffer: UnsafeMutablePointer<CChar>) -> Result<HTTPResponse, any Error> {
        if code == 0 {
            guard head.isComplete, let status = head.status else {
                return .failure(
                    APIError(.transport(.badResponse), message: "the reply had no complete HTTP head", request: request)
                )
            }
            let response = HTTPResponse(
                status: HTTPStatus(code: status), headers: head.headers, body: isStreaming ? Data() : body,
                url: request.url)
            body = Data()
            return .success(response)
        }
        body = Data()
        if let stopReason { return .failure(stopReason) }
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? CurlFailure.describe(code) : detail
        var failure = CurlFailure.classify(code, text: text)
        if failure == .timedOut, ContinuousClock.now - started >= budget - .milliseconds(5) {
            failure = .deadlineExceeded
            return .failure(
                APIError(
                    .transport(failure), message: "no complete response within \(DurationText.seconds(budget))",
                    request: request))
        }
        return .failure(APIError(.transport(failure), message: text, request: request))
    }

    /// The failure of a transfer that stayed silent past the idle timeout.
    func idleFailure() -> APIError {
        APIError(
            .transport(.timedOut),
            message: "no byte moved for \(DurationText.seconds(configuration.idleTimeout))", request: request)
    }
}

// libcurl's callbacks: plain C functions that find the transfer through their context pointer,
// which the loop keeps alive (in its table of running transfers) for as long as the handle runs.

private let curlHeaderCallback: ccurl_data_callback = { buffer, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

private let curlWriteCallback: ccurl_data_callback = { buffer, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

private let curlReadCallback: ccurl_data_callback = { buffer, size, count, context in
    guard let context, let buffer else { return Int(CCURL_READFUNC_ABORT) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

private let curlSeekCallback: ccurl_seek_callback = { context, offset, origin in
    guard let context, origin == SEEK_SET else { return Int32(CCURL_SEEKFUNC_FAIL) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.seekBody(to: offset) ? Int32(CCURL_SEEKFUNC_OK) : Int32(CCURL_SEEKFUNC_FAIL)
}
