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
    /// varies). The name of the first option libcurl refused, or `nil` when it took them all.
    static func prepare(
        _ easy: OpaquePointer, errorBuffer: UnsafeMutablePointer<CChar>, configuration: CurlTransport.Configuration,
        resolveList: OpaquePointer?
    ) -> String? {
        var refused: String?
        func check(_ code: Int32, _ name: @autoclosure () -> String = "an option") {
            if code != 0, refused == nil { refused = name() }
        }
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_ERRORBUFFER), errorBuffer))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOSIGNAL), 1))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_FOLLOWLOCATION), 0))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_PIPEWAIT), 1))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TCP_KEEPALIVE), 1))
        check(restrictProtocols(easy))
        prepareProxy(easy, configuration: configuration, check: check)
        // A proxy's own `200 Connection established` head must never reach the head parser.
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_SUPPRESS_CONNECT_HEADERS), 1))
        // CURLOPT_HTTPHEADER goes to the origin only, CURLOPT_PROXYHEADER to the proxy only.
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_HEADEROPT), CCURLHEADER_SEPARATE), "CURLOPT_HEADEROPT")
        check(
            ccurl_easy_setopt_long(easy, Int32(CCURLOPT_HTTP_VERSION), httpVersionOption(configuration.httpVersion)),
            "CURLOPT_HTTP_VERSION")
        // Every encoding this libcurl decodes; the size limit counts decoded bytes.
        check("".withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_ACCEPT_ENCODING), $0) })
        prepareTLS(easy, configuration.tls, options: .origin, check: check)
        // A resumed TLS session shows the server the certificate of the session's first handshake:
        // with a client certificate, every new connection reads its files and shows what they hold
        // now (a renewed certificate), at the cost of a full handshake.
        let showsCertificate =
            configuration.tls.clientCertificate != nil || configuration.proxyTLS.clientCertificate != nil
        check(
            ccurl_easy_setopt_long(easy, Int32(CCURLOPT_SSL_SESSIONID_CACHE), showsCertificate ? 0 : 1),
            "CURLOPT_SSL_SESSIONID_CACHE")
        prepareConnections(easy, configuration: configuration, resolveList: resolveList, check: check)
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_HEADERFUNCTION), CurlCallbacks.header))
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), CurlCallbacks.write))
        check(ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_READFUNCTION), CurlCallbacks.read))
        check(ccurl_easy_setopt_seek_callback(easy, CurlCallbacks.seek))
        return refused
    }

    private static func httpVersionOption(_ version: CurlTransport.HTTPVersion) -> Int {
        switch version {
        case .http1: CCURL_HTTP_VERSION_1_1
        case .http2: CCURL_HTTP_VERSION_2TLS
        case .http2PriorKnowledge: CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
        }
    }

    /// The proxy, its credentials (for whatever scheme it asks: Basic, Digest, NTLM, Negotiate;
    /// RFC 1929 for SOCKS5), the hosts that bypass it, and TLS to an HTTPS proxy.
    private static func prepareProxy(
        _ easy: OpaquePointer, configuration: CurlTransport.Configuration,
        check: (Int32, @autoclosure () -> String) -> Void
    ) {
        if let proxy = configuration.proxy {
            // libcurl prefers credentials in the proxy URL to CURLOPT_PROXYUSERNAME: a credential
            // value must win, so the URL goes without them then.
            let url = configuration.proxyCredential == nil ? proxy.absoluteString : withoutCredentials(proxy)
            check(url.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PROXY), $0) }, "CURLOPT_PROXY")
        }
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_PROXYAUTH), Int(CCURLAUTH_ANY)), "CURLOPT_PROXYAUTH")
        if let credential = configuration.proxyCredential {
            check(
                credential.user.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PROXYUSERNAME), $0) },
                "CURLOPT_PROXYUSERNAME")
            check(
                credential.password.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PROXYPASSWORD), $0) },
                "CURLOPT_PROXYPASSWORD")
        }
        if !configuration.noProxy.isEmpty {
            // libcurl takes "*" only alone: a list that holds it means every host.
            let hosts = Self.noProxyOption(configuration.noProxy)
            check(hosts.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_NOPROXY), $0) }, "CURLOPT_NOPROXY")
        }
        prepareTLS(easy, configuration.proxyTLS, options: .proxy, check: check)
    }

    /// libcurl's `CURLOPT_NOPROXY` for the caller's list: `*` when the list holds it, IPv6
    /// addresses without brackets (libcurl compares them bare).
    static func noProxyOption(_ hosts: [String]) -> String {
        let trimmed = hosts.map { $0.trimmingCharacters(in: .whitespaces) }
        if trimmed.contains("*") { return "*" }
        return trimmed.map { host in
            host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        }.joined(separator: ",")
    }

    /// The URL without its user and password.
    private static func withoutCredentials(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.user = nil
        components.password = nil
        return components.string ?? url.absoluteString
    }

    /// The option numbers of one side's TLS settings: the origin's, or an HTTPS proxy's.
    private struct TLSOptionNumbers {
        let verifyPeer, verifyHost, authorities, pinnedKey, version, certificate, certificateType, key, keyType,
            passphrase: Int
        static let origin = TLSOptionNumbers(
            verifyPeer: CCURLOPT_SSL_VERIFYPEER, verifyHost: CCURLOPT_SSL_VERIFYHOST, authorities: CCURLOPT_CAINFO,
            pinnedKey: CCURLOPT_PINNEDPUBLICKEY, version: CCURLOPT_SSLVERSION, certificate: CCURLOPT_SSLCERT,
            certificateType: CCURLOPT_SSLCERTTYPE, key: CCURLOPT_SSLKEY, keyType: CCURLOPT_SSLKEYTYPE,
            passphrase: CCURLOPT_KEYPASSWD)
        static let proxy = TLSOptionNumbers(
            verifyPeer: CCURLOPT_PROXY_SSL_VERIFYPEER, verifyHost: CCURLOPT_PROXY_SSL_VERIFYHOST,
            authorities: CCURLOPT_PROXY_CAINFO, pinnedKey: CCURLOPT_PROXY_PINNEDPUBLICKEY,
            version: CCURLOPT_PROXY_SSLVERSION, certificate: CCURLOPT_PROXY_SSLCERT,
            certificateType: CCURLOPT_PROXY_SSLCERTTYPE, key: CCURLOPT_PROXY_SSLKEY,
            keyType: CCURLOPT_PROXY_SSLKEYTYPE, passphrase: CCURLOPT_PROXY_KEYPASSWD)
    }

    private static func prepareTLS(
        _ easy: OpaquePointer, _ tls: CurlTransport.TLSOptions, options: TLSOptionNumbers,
        check: (Int32, @autoclosure () -> String) -> Void
    ) {
        func string(_ option: Int, _ value: String, _ name: String) {
            check(value.withCString { ccurl_easy_setopt_pointer(easy, Int32(option), $0) }, name)
        }
        check(ccurl_easy_setopt_long(easy, Int32(options.verifyPeer), tls.verifiesCertificates ? 1 : 0), "VERIFYPEER")
        check(ccurl_easy_setopt_long(easy, Int32(options.verifyHost), tls.verifiesCertificates ? 2 : 0), "VERIFYHOST")
        let version = tls.minimumVersion == .tls13 ? CCURL_SSLVERSION_TLSv1_3 : CCURL_SSLVERSION_TLSv1_2
        check(ccurl_easy_setopt_long(easy, Int32(options.version), version), "the minimum TLS version")
        if let authorities = tls.certificateAuthorities {
            string(options.authorities, authorities.path, "the CA file")
        }
        if !tls.pinnedPublicKeyHashes.isEmpty {
            let pins = tls.pinnedPublicKeyHashes.map { "sha256//\($0)" }.joined(separator: ";")
            string(options.pinnedKey, pins, "the public-key pins")
        }
        guard let certificate = tls.clientCertificate else { return }
        string(options.certificate, certificate.certificate.path, "the client certificate")
        string(options.certificateType, certificate.format == .pkcs12 ? "P12" : "PEM", "the client certificate's type")
        if let key = certificate.privateKey {
            string(options.key, key.path, "the client key")
            string(options.keyType, "PEM", "the client key's type")
        }
        // Always a passphrase, empty when none was given: without one OpenSSL asks for it on the
        // terminal, and a service would hang there on an encrypted key.
        string(options.passphrase, certificate.passphrase ?? "", "the client key's passphrase")
    }

    /// Fixed addresses, and how long a connection may be idle, or alive, and still be reused.
    private static func prepareConnections(
        _ easy: OpaquePointer, configuration: CurlTransport.Configuration, resolveList: OpaquePointer?,
        check: (Int32, @autoclosure () -> String) -> Void
    ) {
        if let resolveList {
            check(
                ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_RESOLVE), UnsafeRawPointer(resolveList)),
                "CURLOPT_RESOLVE")
        }
        if let idle = configuration.maximumConnectionIdleTime, let age = maximumAgeOption(idle) {
            check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_MAXAGE_CONN), age), "CURLOPT_MAXAGE_CONN")
        }
        if let lifetime = configuration.maximumConnectionLifetime {
            // 0 would mean "no limit" to libcurl: the shortest limit is one second.
            check(
                ccurl_easy_setopt_long(easy, Int32(CCURLOPT_MAXLIFETIME_CONN), max(1, wholeSeconds(lifetime))),
                "CURLOPT_MAXLIFETIME_CONN (libcurl 7.80 or later)")
        }
    }

    /// libcurl's `host:port:address` lines for ``CurlTransport/Configuration/resolve``, or `nil`
    /// when there are none. The caller frees the list, after every handle that uses it.
    static func makeResolveList(_ resolve: [String: String]) -> OpaquePointer? {
        var list: OpaquePointer?
        for (hostAndPort, address) in resolve.sorted(by: { $0.key < $1.key }) {
            list = "\(hostAndPort):\(address)".withCString { ccurl_slist_append(list, $0) }
        }
        return list
    }

    /// A duration in whole seconds, rounded up (saturated at `Int.max`), for libcurl's
    /// second-granular options.
    static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let whole = Int(clamping: seconds)
        return attoseconds > 0 && whole < Int.max ? whole + 1 : whole
    }

    /// `CURLOPT_MAXAGE_CONN` for an idle time: libcurl reuses a connection while its idle time in
    /// whole seconds, rounded down, is not above the option, so a connection idle `N - 1` seconds
    /// and a bit would still be reused under `N`: the option is one second less than the idle
    /// time rounded up. `nil` for an idle time of zero or less: no connection is reused then
    /// (``isReuseForbidden(_:)``).
    static func maximumAgeOption(_ idle: Duration) -> Int? {
        guard idle > .zero else { return nil }
        return wholeSeconds(idle) - 1
    }

    /// Whether every transfer gets a new connection, closed after it: an idle time of zero or less.
    static func isReuseForbidden(_ configuration: CurlTransport.Configuration) -> Bool {
        guard let idle = configuration.maximumConnectionIdleTime else { return false }
        return idle <= .zero
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
        // libcurl before 8.0 fails the second request on a reused h2c prior-knowledge connection:
        // each such request gets a connection of its own, closed after it.
        // An idle time of zero or less: no connection is kept for another request either.
        let isolated =
            (configuration.httpVersion == .http2PriorKnowledge && request.url.scheme?.lowercased() == "http"
                && CurlLibrary.breaksReusedPriorKnowledge) || Self.isReuseForbidden(configuration)
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_FRESH_CONNECT), isolated ? 1 : 0))
        check(ccurl_easy_setopt_long(easy, Int32(CCURLOPT_FORBID_REUSE), isolated ? 1 : 0))
        configureMethodAndBody(easy, check: check)
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_HTTPHEADER), UnsafeRawPointer(headerList)))
        // Set (or cleared) for every transfer: the pooled handle keeps the last request's.
        check(ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PROXYHEADER), UnsafeRawPointer(proxyHeaderList)))
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

    /// Whether a header is for the proxy (`Proxy-Authorization`, `Proxy-Connection`, …).
    static func isProxyHeader(_ name: HTTPHeaders.Name) -> Bool {
        name.canonicalName.hasPrefix("proxy-")
    }

    /// The caller's `Proxy-*` headers for libcurl's proxy list: sent with `CONNECT`, and with a
    /// plain-HTTP request forwarded by the proxy, never to the origin.
    static func makeProxyHeaderList(_ headers: HTTPHeaders) -> OpaquePointer? {
        var list: OpaquePointer?
        for field in headers {
            let line = field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)"
            list = line.withCString { ccurl_slist_append(list, $0) }
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
