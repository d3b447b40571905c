import CCourierCurl
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The libcurl options of a transfer: those every transfer of a transport shares, set once per
/// pooled easy handle, and those that vary by request (the C callbacks they install: CurlCallbacks).
extension CurlTransfer {
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
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_HEADERFUNCTION), CurlCallbacks.header))
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), CurlCallbacks.write))
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_READFUNCTION), CurlCallbacks.read))
        check(ccurl_easy_setopt_seek_callback(easy, CurlCallbacks.seek))
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
        // Set (or cleared) for every transfer: the pooled handle keeps the last request's.
        if let socketPath {
            check(socketPath.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_UNIX_SOCKET_PATH), $0) })
        } else {
            check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_UNIX_SOCKET_PATH), nil))
        }
        // What is left of the budget: a transfer may have waited in the loop's queue for a slot.
        let left = deadline - started
        guard left > .zero else { throw deadlineFailure() }
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TIMEOUT_MS), Self.milliseconds(left)))
        check(
            ccurl_easy_setopt_long(
                easy, Int32(CCURLOPT_HTTP_CONTENT_DECODING), leavesBodyEncoded || !decodesContent ? 0 : 1))
        check(
            ccurl_easy_setopt_long(
                easy, Int32(CCURLOPT_CONNECTTIMEOUT_MS), Self.milliseconds(min(left, configuration.connectTimeout))))
        for option in [CCURLOPT_HEADERDATA, CCURLOPT_WRITEDATA, CCURLOPT_READDATA, CCURLOPT_SEEKDATA] {
            check(ccurl_easy_setopt_pointer(easy, Int32(option), context))
        }
        configureMethodAndBody(easy, check: check)
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_HTTPHEADER), UnsafeRawPointer(headerList)))
        if failed {
            throw APIError(.transport(.other), message: "libcurl refused an option for this request", request: request)
        }
    }

    /// The method and body; each option is set either way, as the handle keeps the last request's.
    private func configureMethodAndBody(_ easy: OpaquePointer, check: (Int32) -> Void) {
        let method = request.method
        let sendsBody = upload != nil
        if let upload {
            // UPLOAD streams the body through the read callback with its Content-Length; the
            // method is then whatever CUSTOMREQUEST says.
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOBODY), 0))
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_UPLOAD), 1))
            // -1 (unknown): HTTP/1.1 sends the body chunked.
            check(ccurl_easy_setopt_int64(easy, Int32(CCURLOPT_INFILESIZE_LARGE), upload.length ?? -1))
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

    /// The request's header list for libcurl; `acceptEncoding`, when given, is asked for unless the
    /// request asks for codings of its own (libcurl then adds no `Accept-Encoding` of its own).
    static func makeHeaderList(_ headers: HTTPHeaders, acceptEncoding: String? = nil) -> OpaquePointer? {
        var list: OpaquePointer?
        func append(_ line: String) {
            list = line.withCString { ccurl_slist_append(list, $0) }
        }
        for field in headers where field.name != .contentLength {
            // "Name:" would remove a header libcurl adds; "Name;" sends it empty.
            append(field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)")
        }
        if let acceptEncoding, !headers.contains(.acceptEncoding) {
            append("Accept-Encoding: \(acceptEncoding)")
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
        bodyStream?.close()
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let total = seconds.multipliedReportingOverflow(by: 1000)
        guard !total.overflow, seconds >= 0 else { return seconds < 0 ? 1 : Int.max / 2 }
        return max(1, Int(total.partialValue) + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }
}
