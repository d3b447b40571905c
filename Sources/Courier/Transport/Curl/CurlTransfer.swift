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
    /// When the budget ends: a transfer complete only after it (the loop was held up) has failed.
    private let deadline: ContinuousClock.Instant
    private let configuration: CurlTransport.Configuration
    private let consumer: (any ResponseBodyConsumer)?

    // MARK: Loop thread only

    /// The easy handle running this transfer, while it runs.
    var easy: OpaquePointer?
    /// When the loop added the transfer, and when it last saw a byte move.
    private(set) var started = ContinuousClock.now
    var lastActivity = ContinuousClock.now
    /// Whether a byte moved since the loop last looked (cheaper than reading the clock per callback).
    var movedSinceLastLook = false
    private var head = ResponseHeadParser()
    /// The head's bytes as they arrived, when nobody needs it parsed before the end: parsing
    /// then happens on the caller's thread, not the loop's.
    private var rawHead: [UInt8] = []
    private var headBytes = 0
    /// The raw head's Content-Length, checked against the limit when the body starts.
    private var announcedLength: Int?
    /// Whether the raw head has a Content-Encoding line (then Content-Length counts encoded bytes).
    private var rawHeadIsEncoded = false
    private var bodyStarted = false
    /// Whether the final head has been seen and acted on.
    private var headHandled = false
    /// Whether the consumer takes the body piece by piece.
    private var isStreaming = false
    private var body = Data()
    private var upload: CurlUpload?
    /// Why a callback stopped the transfer, to report instead of libcurl's generic code.
    private var stopReason: (any Error)?

    // MARK: Made on the caller's thread, read on the loop thread

    /// The request line's URL and the header list, built before the transfer reaches the loop
    /// (libcurl copies the URL; the list lives as long as the transfer).
    private let urlString: String
    private let headerList: OpaquePointer?

    // MARK: Any thread

    /// What the loop hands back: the response, with its head still to parse when `rawHead` is set.
    struct Delivery: Sendable {
        var response: HTTPResponse
        var rawHead: [UInt8]?
    }

    /// The largest response head accepted (libcurl limits each header line to 100 KB, not their sum).
    static let maximumHeadSize = 1 << 20

    private enum Outcome {
        case waiting
        case running(CheckedContinuation<Delivery, any Error>)
        case finished(Result<Delivery, any Error>?)
    }
    private let outcome = Locked(Outcome.waiting)

    init(
        request: HTTPRequest, budget: Duration, configuration: CurlTransport.Configuration,
        consumer: (any ResponseBodyConsumer)?
    ) {
        self.request = request
        self.budget = budget
        deadline = ContinuousClock.now + budget
        self.configuration = configuration
        self.consumer = consumer
        urlString = request.url.absoluteString
        headerList = Self.makeHeaderList(request.headers)
    }

    deinit {
        if let headerList { ccurl_slist_free_all(headerList) }
    }

    // MARK: Completion, from any thread

    /// Stores the continuation; `false` when the transfer finished already (cancelled before it
    /// started), in which case the continuation has been resumed.
    func begin(_ continuation: CheckedContinuation<Delivery, any Error>) -> Bool {
        let early: Result<Delivery, any Error>?? = outcome.withLock { outcome in
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
    func finish(_ result: Result<Delivery, any Error>) -> Bool {
        let continuation: CheckedContinuation<Delivery, any Error>?? = outcome.withLock { outcome in
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

    /// Sets the options every transfer of the transport shares, once per easy handle (handles are
    /// reused without `curl_easy_reset`; ``configure(_:errorBuffer:)`` sets every option that
    /// varies). `false` when libcurl refused one.
    static func prepare(
        _ easy: OpaquePointer, errorBuffer: UnsafeMutablePointer<CChar>, configuration: CurlTransport.Configuration
    ) -> Bool {
        var failed = false
        func check(_ code: Int32) {
            if code != 0 { failed = true }
        }
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_ERRORBUFFER), errorBuffer))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOSIGNAL), 1))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_FOLLOWLOCATION), 0))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_PIPEWAIT), 1))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TCP_KEEPALIVE), 1))
        check(restrictProtocols(easy))
        if let proxy = configuration.proxy {
            check(proxy.absoluteString.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PROXY), $0) })
        }
        // A proxy's own `200 Connection established` head must never reach the head parser.
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_SUPPRESS_CONNECT_HEADERS), 1))
        check(
            ccurl_easy_setopt_long(
                easy, Int32(CCURLOPT_HTTP_VERSION),
                configuration.prefersHTTP2 ? CCURL_HTTP_VERSION_2TLS : CCURL_HTTP_VERSION_1_1))
        // Every encoding this libcurl decodes; the size limit counts decoded bytes.
        check("".withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_ACCEPT_ENCODING), $0) })
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
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_HEADERFUNCTION), curlHeaderCallback))
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), curlWriteCallback))
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_READFUNCTION), curlReadCallback))
        check(ccurl_easy_setopt_seek_callback(easy, curlSeekCallback))
        return !failed
    }

    /// Limits libcurl to http and https, for requests and for any redirect it might follow (Courier
    /// follows redirects itself, but `file://`, `dict://` and the rest must be unreachable whatever
    /// happens). Uses the protocol names of libcurl 7.85 and later, the bit mask before.
    private static func restrictProtocols(_ easy: OpaquePointer) -> Int32 {
        let byName =
            "http,https".withCString { names in
                ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PROTOCOLS_STR), names) == 0
                    && ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_REDIR_PROTOCOLS_STR), names) == 0
            }
        guard !byName else { return 0 }
        let mask = Int(CCURLPROTO_HTTP | CCURLPROTO_HTTPS)
        let code = ccurl_easy_setopt_long(easy, Int32(CCURLOPT_PROTOCOLS), mask)
        return code != 0 ? code : ccurl_easy_setopt_long(easy, Int32(CCURLOPT_REDIR_PROTOCOLS), mask)
    }

    /// Sets the handle's options that vary by request; an error when the request cannot be sent.
    func configure(_ easy: OpaquePointer, errorBuffer: UnsafeMutablePointer<CChar>) throws {
        started = ContinuousClock.now
        lastActivity = started
        let context = Unmanaged.passUnretained(self).toOpaque()
        var failed = false
        func check(_ code: Int32) {
            if code != 0 { failed = true }
        }
        errorBuffer.pointee = 0
        check(urlString.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_URL), $0) })
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TIMEOUT_MS), Self.milliseconds(budget)))
        check(
            ccurl_easy_setopt_long(
                easy, Int32(CCURLOPT_CONNECTTIMEOUT_MS), Self.milliseconds(min(budget, configuration.connectTimeout))))
        for option in [CCURLOPT_HEADERDATA, CCURLOPT_WRITEDATA, CCURLOPT_READDATA, CCURLOPT_SEEKDATA] {
            check(ccurl_easy_setopt_pointer(easy, Int32(option), context))
        }
        try configureMethodAndBody(easy, check: check)
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_HTTPHEADER), UnsafeRawPointer(headerList)))
        if failed {
            throw APIError(.transport(.other), message: "libcurl refused an option for this request", request: request)
        }
    }

    /// The method and body; each option is set either way, as the handle keeps the last request's.
    private func configureMethodAndBody(_ easy: OpaquePointer, check: (Int32) -> Void) throws {
        let method = request.method
        let sendsBody = request.body != nil || [.post, .put, .patch].contains(method)
        if sendsBody {
            let upload = try CurlUpload(request.body, request: request)
            self.upload = upload
            // UPLOAD streams the body through the read callback with its Content-Length; the
            // method is then whatever CUSTOMREQUEST says.
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOBODY), 0))
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_UPLOAD), 1))
            check(ccurl_easy_setopt_int64(easy, Int32(CCURLOPT_INFILESIZE_LARGE), upload.length))
        } else {
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_UPLOAD), 0))
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_HTTPGET), 1))
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOBODY), method == .head ? 1 : 0))
        }
        // In upload mode libcurl sends PUT unless told otherwise: a GET with a body stays a GET.
        if sendsBody || (method != .get && method != .head) {
            check(method.rawValue.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_CUSTOMREQUEST), $0) })
        } else {
            check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_CUSTOMREQUEST), nil))
        }
    }

    private static func makeHeaderList(_ headers: HTTPHeaders) -> OpaquePointer? {
        var list: OpaquePointer?
        func append(_ line: String) {
            list = line.withCString { ccurl_slist_append(list, $0) }
        }
        for field in headers where field.name != .contentLength {
            // "Name:" would remove a header libcurl adds; "Name;" sends it empty.
            append(field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)")
        }
        if !headers.contains("Expect") {
            // No 100-continue round trip (and its one-second wait on servers that never answer it).
            append("Expect:")
        }
        return list
    }

    /// Closes the request body; the header list goes with the transfer, after the loop has taken
    /// it off the handle.
    func releaseResources() {
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
        movedSinceLastLook = true
        headBytes += line.count
        guard headBytes <= Self.maximumHeadSize else {
            return stop(
                APIError(
                    .transport(.badResponse),
                    message: "the response head is larger than \(Self.maximumHeadSize) bytes", request: request))
        }
        guard consumer != nil else {
            // Only the size limit and the body's capacity need the head now: look for Content-Length.
            rawHead.append(contentsOf: line)
            return noteContentLength(line)
        }
        do {
            try head.consume(line)
        } catch {
            return stop(APIError(.transport(.badResponse), message: error.reason, request: request))
        }
        // The head is acted on when the body starts (or the exchange ends): until then another
        // head may follow and replace it.
        return true
    }

    /// Hands the final head to the consumer, once: when the first body byte arrives, or at the
    /// end of a body-less exchange. `false` stops the transfer.
    private func handleHeadIfComplete() -> Bool {
        guard consumer != nil, !headHandled, head.isComplete, let status = head.status else { return true }
        headHandled = true
        return headArrived(status: status, headers: head.headers)
    }

    private static let contentLengthPrefix = Array("content-length:".utf8)
    private static let statusLinePrefix = Array("http/".utf8)

    /// Notes a `Content-Length` or `Content-Encoding` line, for ``bodyStarts()``; the full checks (conflicting values,
    /// interim heads) come with the parsed head.
    private func noteContentLength(_ line: UnsafeRawBufferPointer) -> Bool {
        if Self.hasPrefix(line, Self.statusLinePrefix) {
            // A new head (an interim one, or the origin's after a proxy's): forget the last one's.
            announcedLength = nil
            rawHeadIsEncoded = false
            return true
        }
        if Self.hasPrefix(line, Self.contentEncodingPrefix) { rawHeadIsEncoded = true }
        guard Self.hasPrefix(line, Self.contentLengthPrefix) else { return true }
        var length = 0
        for byte in line.dropFirst(Self.contentLengthPrefix.count) {
            if byte == UInt8(ascii: " ") { continue }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), length < Int.max / 20 else { break }
            length = length * 10 + Int(byte - UInt8(ascii: "0"))
        }
        announcedLength = length
        return true
    }

    /// Whether the line starts with `prefix` (lowercase), ignoring case.
    private static func hasPrefix(_ line: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
        guard line.count > prefix.count else { return false }
        for index in prefix.indices where line[index] | 0x20 != prefix[index] { return false }
        return true
    }

    /// With the whole raw head in: refuses an unencoded body announced over the limit, and sizes
    /// the buffer for one under it (a fresh buffer grown piece by piece costs page faults).
    private func bodyStarts() -> Bool {
        bodyStarted = true
        guard consumer == nil, let length = announcedLength, !rawHeadIsEncoded else { return true }
        guard length <= configuration.maximumResponseSize else { return stop(tooLargeError()) }
        body.reserveCapacity(length)
        return true
    }

    private static let contentEncodingPrefix = Array("content-encoding:".utf8)

    /// The response of a delivery, its head parsed now if the loop left it raw. Called on the
    /// caller's thread.
    func response(of delivery: Delivery) throws -> HTTPResponse {
        guard let raw = delivery.rawHead else { return delivery.response }
        var parser = ResponseHeadParser()
        var malformed: ResponseHeadParser.Malformed?
        raw.withUnsafeBytes { bytes in
            var lineStart = 0
            while lineStart < bytes.count, malformed == nil {
                let end = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
                do throws(ResponseHeadParser.Malformed) {
                    try parser.consume(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<end]))
                } catch {
                    malformed = error
                }
                lineStart = end
            }
        }
        if let malformed {
            throw APIError(.transport(.badResponse), message: malformed.reason, request: request)
        }
        guard parser.isComplete, let status = parser.status else {
            throw APIError(.transport(.badResponse), message: "the reply had no complete HTTP head", request: request)
        }
        let headers = parser.headers
        if let conflict = Self.lengthProblem(headers) {
            throw APIError(.transport(.badResponse), message: conflict, request: request)
        }
        var response = delivery.response
        response.status = HTTPStatus(code: status)
        response.headers = headers
        return response
    }

    /// Why the Content-Length values cannot frame the body, if they cannot: not a number, or
    /// differing values (RFC 9112 §6.3).
    private static func lengthProblem(_ headers: HTTPHeaders) -> String? {
        var lengths: [Int] = []
        for value in headers.values(for: .contentLength) {
            for part in value.utf8.split(separator: UInt8(ascii: ",")) {
                let digits = part.drop { $0 == UInt8(ascii: " ") }.prefix { $0 != UInt8(ascii: " ") }
                guard let length = Int(Substring(digits)), length >= 0 else {
                    return "the response's Content-Length \"\(value)\" is not a number"
                }
                if !lengths.contains(length) { lengths.append(length) }
            }
        }
        guard lengths.count > 1 else { return nil }
        return
            "the response has conflicting Content-Length values (\(lengths.map(String.init).joined(separator: ", ")))"
    }

    private func headArrived(status: Int, headers: HTTPHeaders) -> Bool {
        if let problem = Self.lengthProblem(headers) {
            return stop(APIError(.transport(.badResponse), message: problem, request: request))
        }
        let announced = headers[.contentLength].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let isEncoded = headers[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
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
        movedSinceLastLook = true
        if !bodyStarted, !bodyStarts() || !handleHeadIfComplete() { return false }
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
        movedSinceLastLook = true
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
    func result(code: Int32, errorBuffer: UnsafeMutablePointer<CChar>) -> Result<Delivery, any Error> {
        if code == 0, ContinuousClock.now > deadline {
            // The last byte came in time, maybe, but the loop saw it too late: a deadline that
            // passed is never reported as a success.
            body = Data()
            return .failure(
                APIError(
                    .transport(.deadlineExceeded),
                    message: "no complete response within \(DurationText.seconds(budget))",
                    request: request))
        }
        if code == 0 {
            let response = HTTPResponse(status: .ok, body: isStreaming ? Data() : body, url: request.url)
            body = Data()
            guard consumer != nil else {
                return .success(Delivery(response: response, rawHead: rawHead))
            }
            guard head.isComplete, let status = head.status else {
                return .failure(
                    APIError(.transport(.badResponse), message: "the reply had no complete HTTP head", request: request)
                )
            }
            if !handleHeadIfComplete() {
                return .failure(stopReason ?? APIError(.transport(.other), message: "stopped", request: request))
            }
            var parsed = response
            parsed.status = HTTPStatus(code: status)
            parsed.headers = head.headers
            return .success(Delivery(response: parsed, rawHead: nil))
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
