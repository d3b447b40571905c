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
    let deadline: ContinuousClock.Instant
    let configuration: CurlTransport.Configuration
    let consumer: (any ResponseBodyConsumer)?
    /// The longest the transfer may go without a byte moving (the request's, else the transport's).
    let idleTimeout: Duration
    /// Told how much of the request body went out, when the caller watches upload progress.
    let uploadMeter: UploadMeter?
    /// Whether libcurl leaves the body as the server encoded it, for a consumer that decodes it at
    /// its own pace (a stream): libcurl would inflate a whole network read while paused.
    let leavesBodyEncoded: Bool
    /// Whether libcurl decodes the body's `Content-Encoding`: `false` for the second try of a
    /// response in a coding it does not know, delivered as it came.
    let decodesContent: Bool
    /// Whether libcurl refused the response's `Content-Encoding` as a coding it does not know: the
    /// transport may ask again with decoding off. Set on the loop thread before
    /// the transfer's continuation resumes.
    var refusedContentCoding = false

    // MARK: Loop thread only

    /// The loop running the transfer, for a consumer that asks to resume it (set when it pauses).
    weak var loop: CurlLoop?
    /// Its place in the loop's line of transfers waiting for a slot, while it waits there.
    var waitingTicket: DeadlineQueue<CurlTransfer>.Ticket?
    /// Whether the transfer is paused because the consumer has no room (then it is not idle).
    var isPaused = false
    /// Whether sending is paused because the body stream has nothing yet (then the transfer is
    /// idle: a silent producer runs into the idle timeout).
    var isWaitingForBody = false

    /// The easy handle running this transfer, while it runs.
    var easy: OpaquePointer?
    /// When libcurl got the transfer, and when the loop last saw a byte move.
    var started = ContinuousClock.now
    var lastActivity = ContinuousClock.now
    /// Whether a byte moved since the loop last looked (cheaper than reading the clock per callback).
    var movedSinceLastLook = false
    var head = ResponseHeadParser()
    /// The head's bytes as they arrived, when nobody needs it parsed before the end: parsing
    /// then happens on the caller's thread, not the loop's.
    var rawHead: [UInt8] = []
    var headBytes = 0
    /// The raw head's Content-Length, checked against the limit when the body starts.
    var announcedLength: Int?
    /// Whether the raw head had a Content-Length line already (a second one is left to the full check).
    var hasLengthLine = false
    /// Whether the raw head has a Content-Encoding line (then Content-Length counts encoded bytes).
    var rawHeadIsEncoded = false
    var bodyStarted = false
    /// Whether the final head has been seen and acted on.
    var headHandled = false
    /// Whether the consumer takes the body piece by piece.
    var isStreaming = false
    var body = Data()
    var upload: CurlUpload?
    /// Why a callback stopped the transfer, to report instead of libcurl's generic code.
    var stopReason: (any Error)?
    /// Whether the head being read has status 407 (tracked only when ``endsAtOriginChallenge``).
    var isChallengeHead = false

    // MARK: Made on the caller's thread, read on the loop thread

    /// The request line's URL and the header list, built before the transfer reaches the loop
    /// (libcurl copies the URL; the list lives as long as the transfer).
    let urlString: String
    let headerList: OpaquePointer?
    /// The caller's `Proxy-*` headers, for the proxy alone (`CURLOPT_PROXYHEADER`), or `nil`.
    let proxyHeaderList: OpaquePointer?
    /// The Unix domain socket the request goes to (an `http+unix` URL), else `nil`.
    let socketPath: String?
    /// Whether a 407 head ends the transfer as the response: it can only be the origin's (libcurl
    /// suppresses a proxy's answer to CONNECT) and libcurl holds proxy credentials, with which it
    /// would send the request to the origin again (a POST twice).
    let endsAtOriginChallenge: Bool

    // MARK: Any thread

    /// The request's body stream, when it has one: closed (its producer cancelled) when the call ends.
    let bodyStream: BodyStreamReader?

    /// What the loop hands back: the response, with its head still to parse when `rawHead` is set.
    struct Delivery: Sendable {
        var response: HTTPResponse
        var rawHead: [UInt8]?
    }

    /// The largest response head accepted (libcurl limits each header line to 100 KB, not their sum).
    static let maximumHeadSize = 1 << 20

    /// The caller's continuation. Unchecked (no canary object per request): `outcome` hands it
    /// out exactly once, to whichever of completion, failure and cancellation comes first.
    typealias Continuation = UnsafeContinuation<Delivery, any Error>

    private enum Outcome {
        case waiting
        case running(Continuation)
        case finished(Result<Delivery, any Error>?)
    }
    private let outcome = Locked(Outcome.waiting)

    /// Makes the transfer on the caller's task, where its body file (if any) is opened and checked:
    /// nothing that may block reaches the loop thread.
    ///
    /// - Parameter bodyFile: The request's body file, opened already (every hop of a redirect sends
    ///   the same one); opened here when the request has a file body and none is given.
    /// - Throws: ``APIError`` when the body file cannot be sent.
    init(
        request: HTTPRequest, bodyFile: BodyFile? = nil, budget: Duration, configuration: CurlTransport.Configuration,
        consumer: (any ResponseBodyConsumer)?, uploadMeter: UploadMeter? = nil, decodesContent: Bool = true
    ) throws {
        self.decodesContent = decodesContent
        // POST, PUT and PATCH always go in upload mode, with an empty body when they have none.
        if request.body != nil || [.post, .put, .patch].contains(request.method) {
            upload = try CurlUpload(request.body, file: bodyFile, request: request)
        }
        bodyStream = upload?.stream
        self.request = request
        idleTimeout = request.idleTimeout ?? configuration.idleTimeout
        self.uploadMeter = uploadMeter
        self.budget = budget
        deadline = ContinuousClock.now + budget
        self.configuration = configuration
        self.consumer = consumer
        // A route that asks for codings of its own gets libcurl's decoding of them, as any call does.
        leavesBodyEncoded = consumer?.decodesContentEncoding == true && !request.headers.contains(.acceptEncoding)
        // A socket URL goes to libcurl as http://localhost/… with the socket path beside it.
        let socketPath = UnixSocketURL.socketPath(of: request.url)
        self.socketPath = socketPath
        endsAtOriginChallenge = Self.onlyOriginsChallenge(request: request, configuration: configuration)
        var headers = request.headers
        if let socketPath {
            urlString = UnixSocketURL.wireURLString(for: request.url, socketPath: socketPath)
            // What curl --unix-socket sends (the URL's port is the socket's own, never sent).
            if !headers.contains(.host) { headers[.host] = "localhost" }
        } else {
            urlString = request.url.absoluteString
        }
        // A caller's Proxy-Authorization (any Proxy-* header) is for the proxy: never the origin's,
        // through a tunnel or directly. Without a proxy in use it goes nowhere.
        var proxyFields = HTTPHeaders()
        if headers.contains(where: { Self.isProxyHeader($0.name) }) {
            proxyFields = HTTPHeaders(headers.filter { Self.isProxyHeader($0.name) })
            headers = HTTPHeaders(headers.filter { !Self.isProxyHeader($0.name) })
        }
        headerList = Self.makeHeaderList(
            headers, acceptEncoding: leavesBodyEncoded ? ContentDecoder.acceptedCodings : nil)
        proxyHeaderList = proxyFields.isEmpty ? nil : Self.makeProxyHeaderList(proxyFields)
    }

    deinit {
        if let headerList { ccurl_slist_free_all(headerList) }
        if let proxyHeaderList { ccurl_slist_free_all(proxyHeaderList) }
    }

    // MARK: Completion, from any thread

    /// Stores the continuation; `false` when the transfer finished already (cancelled before it
    /// started), in which case the continuation has been resumed.
    func begin(_ continuation: Continuation) -> Bool {
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
        let continuation: Continuation?? = outcome.withLock { outcome in
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

    // MARK: Callbacks, on the loop thread (the head's in CurlTransfer+Head.swift)

    /// What the write callback answers: every byte taken, a stop, or a pause (libcurl keeps the
    /// bytes and offers them again when the transfer resumes).
    enum BodyVerdict {
        case taken
        case stop
        case pause
    }

    /// Body bytes (decoded): taken, refused (the transfer stops) or held back (it pauses until
    /// the consumer has room).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyVerdict {
        movedSinceLastLook = true
        if !bodyStarted, !bodyStarts() || !handleHeadIfComplete() { return .stop }
        if isStreaming, let consumer {
            let hasRoom = consumer.hasRoom { [weak loop, weak self] in
                if let loop, let self { loop.resume(self) }
            }
            guard hasRoom else {
                isPaused = true
                return .pause
            }
            do {
                try consumer.receive(Data(bytes))
            } catch {
                _ = stop(error)
                return .stop
            }
            return .taken
        }
        guard body.count + bytes.count <= configuration.maximumResponseSize else {
            _ = stop(tooLargeError())
            return .stop
        }
        body.append(contentsOf: bytes)
        return .taken
    }

    /// Fills libcurl's buffer with the next request body bytes: how many, 0 at the end, or
    /// `CURL_READFUNC_ABORT`.
    /// `CURL_READFUNC_PAUSE` when a body stream has nothing yet (the loop resumes the transfer when
    /// it has: ``CurlLoop/resumeUpload(_:)``).
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let upload else { return 0 }
        do {
            let count = try upload.read(
                into: buffer,
                waker: { [weak loop, weak self] in
                    if let loop, let self { loop.resumeUpload(self) }
                })
            guard let count else {
                isWaitingForBody = true
                return Int(CCURL_READFUNC_PAUSE)
            }
            movedSinceLastLook = true
            uploadMeter?.sent(upload.offset, of: upload.length, isEnd: count == 0)
            return count
        } catch {
            _ = stop(error)
            return Int(CCURL_READFUNC_ABORT)
        }
    }

    /// Rewinds the request body (libcurl resends it when a reused connection turns out dead).
    func seekBody(to offset: Int64) -> Bool {
        (try? upload?.seek(to: offset)) != nil
    }

    func stop(_ reason: any Error) -> Bool {
        if stopReason == nil { stopReason = reason }
        return false
    }

    func tooLargeError() -> APIError {
        ResponseFraming.tooLargeError(limit: configuration.maximumResponseSize, request: request)
    }

    // MARK: The end, on the loop thread

    /// The result of libcurl's `code` for this transfer.
    func result(code: Int32, errorBuffer: UnsafeMutablePointer<CChar>) -> Result<Delivery, any Error> {
        var code = code
        if stopReason is OriginChallenge {
            // The origin's 407 head is in: its response, not a proxy's challenge to answer.
            stopReason = nil
            code = 0
        }
        if code == 0, ContinuousClock.now > deadline {
            // The last byte came in time, maybe, but the loop saw it too late: a deadline that
            // passed is never reported as a success.
            body = Data()
            return .failure(deadlineFailure())
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
            if !handleHeadIfComplete(), let stopReason { return .failure(stopReason) }
            var parsed = response
            parsed.status = HTTPStatus(code: status)
            parsed.headers = head.headers
            return .success(Delivery(response: parsed, rawHead: nil))
        }
        body = Data()
        if let stopReason { return .failure(stopReason) }
        if let easy, let refusal = CurlFailure.proxyRefusal(of: easy, code: code, request: request) {
            return .failure(refusal)
        }
        // libcurl quotes a proxy URL it cannot use, credentials and all.
        let detail = CurlProxyCheck.scrub(String(cString: errorBuffer), configuration: configuration)
        let text = detail.isEmpty ? CurlFailure.describe(code) : detail
        if CurlProxyCheck.isUnusableProxy(text) {
            return .failure(APIError(.transport(.other), message: text, request: request))
        }
        if let easy, let refusal = CurlFailure.socksRefusal(of: easy, code: code, text: text, request: request) {
            return .failure(refusal)
        }
        if let tlsError = CurlFailure.tlsError(code: code, text: text, configuration: configuration, request: request) {
            return .failure(tlsError)
        }
        // libcurl read a Content-Length of its own making (the first digits, the last line) and
        // failed on it: bad framing is what the head says, not a lost connection.
        if let problem = rawHeadFramingProblem() {
            return .failure(APIError(.transport(.badResponse), message: problem, request: request))
        }
        // libcurl says "Unrecognized content encoding type" for a coding it does not know, and
        // something else for a body its coding cannot decode (a "gzip" body that is not gzip),
        // which stays a bad response. The head must name a coding outside those libcurl always
        // decodes too, so a corrupt gzip or deflate body is never asked for again undecoded.
        if Int(code) == CCURLE_BAD_CONTENT_ENCODING, text.hasPrefix("Unrecognized content encoding"),
            responseContentCodings().contains(where: { !Self.alwaysDecodedCodings.contains($0) })
        {
            refusedContentCoding = true
        }
        if let easy, let refusal = certificateRefusal(easy, code: code, text: text) {
            return .failure(refusal)
        }
        if let easy, let problem = notHTTP2Problem(easy, code: code) {
            return .failure(APIError(.transport(.badResponse), message: "\(text): \(problem)", request: request))
        }
        let failure = CurlFailure.classify(code, text: text)
        if failure == .cannotConnect, let socketPath {
            // libcurl names localhost port 80: say which socket, and why.
            var errorNumber = 0
            if let easy { _ = ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_OS_ERRNO), &errorNumber) }
            let message = UnixSocketURL.diagnose(socketPath, errorNumber: Int32(truncatingIfNeeded: errorNumber))
            return .failure(APIError(.transport(.cannotConnect), message: message, request: request))
        }
        if failure == .timedOut, ContinuousClock.now >= deadline - .milliseconds(5) {
            return .failure(deadlineFailure())
        }
        return .failure(APIError(.transport(failure), message: text, request: request))
    }

    /// The failure of a transfer whose budget ran out (in libcurl's hands or waiting for a slot).
    func deadlineFailure() -> APIError {
        APIError(
            .transport(.deadlineExceeded), message: "no complete response within \(DurationText.seconds(budget))",
            request: request)
    }

    /// The failure of a transfer that stayed silent past the idle timeout.
    func idleFailure() -> APIError {
        APIError(
            .transport(.timedOut),
            message: "no byte moved for \(DurationText.seconds(idleTimeout))", request: request)
    }
}

extension CurlTransfer {
    /// The codings libcurl decodes in every build (`br` and `zstd` only in some).
    static let alwaysDecodedCodings: Set<String> = ["gzip", "x-gzip", "deflate", "identity"]

    /// The codings the response head's `Content-Encoding` lines name, lowercased, as far as the
    /// head arrived (parsed, or still raw).
    func responseContentCodings() -> [String] {
        var values = head.headers.values(for: .contentEncoding)
        for line in String(decoding: rawHead, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-encoding"
            else { continue }
            values.append(String(parts[1]))
        }
        return values.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
    }
}

/// Why a transfer stopped at the end of an origin's 407 head (see ``CurlTransfer/endsAtOriginChallenge``).
struct OriginChallenge: Error {}

extension CurlTransfer {
    /// Whether every 407 head this transfer can see is the origin's, and libcurl may hold proxy
    /// credentials: an HTTPS request (tunnelled, or direct), or any request through a SOCKS proxy.
    /// A plain-HTTP request through an HTTP proxy may get the proxy's own 407, which libcurl answers.
    static func onlyOriginsChallenge(request: HTTPRequest, configuration: CurlTransport.Configuration) -> Bool {
        let hasCredentials =
            configuration.proxyCredential != nil
            || configuration.proxy.map { CurlProxyCheck.userInfo(of: $0.absoluteString) != nil } == true
            || CurlProxyCheck.environmentProxies().contains { CurlProxyCheck.userInfo(of: $0) != nil }
        guard hasCredentials else { return false }
        if request.url.scheme?.lowercased() == "https" { return true }
        return configuration.proxy?.scheme?.lowercased().hasPrefix("socks") == true
    }

    /// Notes a status line's 407, and says whether `line` ends a 407 head.
    func endsChallengeHead(_ line: UnsafeRawBufferPointer) -> Bool {
        if Self.hasPrefix(line, Self.statusLinePrefixBytes) {
            // "HTTP/1.1 407 …", "HTTP/2 407"
            let code = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
            isChallengeHead = code.count > 1 && Array(code[1].prefix(3)) == Array("407".utf8)
            return false
        }
        let isBlank = line.allSatisfy { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
        return isBlank && isChallengeHead
    }

    static let statusLinePrefixBytes = Array("http/".utf8)
}

extension CurlTransfer {
    /// Why an h2c prior-knowledge transfer failed before any response byte on a connection of its
    /// own: the server does not speak HTTP/2 (an HTTP/1.1 server answers the preface with 400 and
    /// closes, which libcurl reports as a send or receive failure). Not a lost connection: asking
    /// again cannot help. `nil` otherwise.
    func notHTTP2Problem(_ easy: OpaquePointer, code: Int32) -> String? {
        guard configuration.httpVersion == .http2PriorKnowledge, request.url.scheme?.lowercased() == "http",
            headBytes == 0,
            [CCURLE_SEND_ERROR, CCURLE_RECV_ERROR, CCURLE_HTTP2, CCURLE_GOT_NOTHING].contains(Int(code))
        else { return nil }
        var connects = 0
        guard ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_NUM_CONNECTS), &connects) == 0, connects > 0 else {
            return nil
        }
        return "the server does not speak HTTP/2 (h2c); use httpVersion .http1 or .http2 for it"
    }
}

extension CurlTransfer {
    /// A transfer showing a client certificate whose new connection was reset or lost before any
    /// response byte: over TLS 1.3 (and HTTP/2) a server that refuses the certificate may close
    /// the connection instead of sending its alert first. Not retried: the same certificate would
    /// be refused again.
    func certificateRefusal(_ easy: OpaquePointer, code: Int32, text: String) -> APIError? {
        var connects = 0
        _ = ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_NUM_CONNECTS), &connects)
        guard
            Self.isCertificateRefusal(
                code: code, text: text, headBytes: headBytes, newConnection: connects > 0,
                configuration: configuration, url: request.url)
        else { return nil }
        return APIError(
            .transport(.clientCertificateRejected),
            message: "\(text): the server closed the connection right after the TLS handshake, before any"
                + " response; it most likely refused the client certificate (check its CA, validity and purpose)",
            request: request)
    }

    /// See ``certificateRefusal(_:code:text:)``.
    static func isCertificateRefusal(
        code: Int32, text: String, headBytes: Int, newConnection: Bool, configuration: CurlTransport.Configuration,
        url: URL
    ) -> Bool {
        guard configuration.tls.clientCertificate != nil, url.scheme?.lowercased() == "https", headBytes == 0,
            newConnection,
            [CCURLE_SEND_ERROR, CCURLE_RECV_ERROR, CCURLE_HTTP2, CCURLE_GOT_NOTHING].contains(Int(code))
        else { return false }
        let lowered = text.lowercased()
        return ["reset", "getpeername", "send failure", "empty reply", "connection died", "closed"].contains {
            lowered.contains($0)
        }
    }
}
