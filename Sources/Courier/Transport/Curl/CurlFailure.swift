import CCourierCurl

/// libcurl's result codes, classified as Courier's transport failures.
enum CurlFailure {
    /// The failure for a libcurl result code (never `CURLE_OK`) and its message. A timeout is
    /// classified by the caller, which knows which of its clocks ran out.
    static func classify(_ code: Int32, text: String) -> TransportFailure {
        if Int(code) == CCURLE_RECV_ERROR {
            // libcurl reports bad chunked framing as a receive error too; its message tells them apart.
            let byText = TransportFailure(classifyingCurlText: text)
            return byText == .badResponse ? .badResponse : .connectionLost
        }
        return classify(code)
    }

    private static func classify(_ code: Int32) -> TransportFailure {
        switch Int(code) {
        case CCURLE_COULDNT_RESOLVE_PROXY, CCURLE_COULDNT_RESOLVE_HOST, CCURLE_COULDNT_CONNECT, CCURLE_PROXY,
            CCURLE_QUIC_CONNECT_ERROR:
            .cannotConnect
        case CCURLE_OPERATION_TIMEDOUT:
            .timedOut
        case CCURLE_PARTIAL_FILE, CCURLE_SEND_ERROR, CCURLE_RECV_ERROR, CCURLE_AGAIN:
            .connectionLost
        case CCURLE_SSL_CONNECT_ERROR, CCURLE_SSL_CERTPROBLEM, CCURLE_SSL_CIPHER, CCURLE_PEER_FAILED_VERIFICATION,
            CCURLE_SSL_ENGINE_INITFAILED, CCURLE_SSL_CACERT_BADFILE, CCURLE_SSL_SHUTDOWN_FAILED, CCURLE_SSL_CRL_BADFILE,
            CCURLE_SSL_ISSUER_ERROR, CCURLE_SSL_PINNEDPUBKEYNOTMATCH, CCURLE_SSL_INVALIDCERTSTATUS,
            CCURLE_SSL_CLIENTCERT:
            .tls
        // Courier only sends absolute http(s) URLs, so an unsupported protocol is a reply libcurl
        // could not read (HTTP/0.9, a garbage status line); a reply without a byte is not HTTP either.
        case CCURLE_UNSUPPORTED_PROTOCOL, CCURLE_WEIRD_SERVER_REPLY, CCURLE_HTTP2, CCURLE_HTTP2_STREAM, CCURLE_HTTP3,
            CCURLE_BAD_CONTENT_ENCODING, CCURLE_GOT_NOTHING,
            // libcurl reports a response header over its 100 KB limit as running out of memory.
            CCURLE_OUT_OF_MEMORY:
            .badResponse
        case CCURLE_FILESIZE_EXCEEDED:
            .responseTooLarge
        default:
            .other
        }
    }

    /// The error of a transfer whose proxy refused to open the tunnel: libcurl ends it with a receive
    /// error and keeps the proxy's answer to `CONNECT`, not 2xx. `nil` when no `CONNECT` was refused
    /// (libcurl sets the status to 0 at the start of each transfer).
    static func proxyRefusal(of easy: OpaquePointer, code: Int32, request: HTTPRequest) -> APIError? {
        guard Int(code) == CCURLE_RECV_ERROR else { return nil }
        var status = 0
        guard ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_HTTP_CONNECTCODE), &status) == 0, status >= 300 else {
            return nil
        }
        return ProxyRefusal.error(status: status, request: request)
    }

    /// libcurl's short description of a result code.
    static func describe(_ code: Int32) -> String {
        String(cString: ccurl_easy_strerror(code))
    }
}
