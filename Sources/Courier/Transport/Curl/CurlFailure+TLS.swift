import CCourierCurl

/// TLS failures that deserve more than libcurl's text: a client certificate that could not be used
/// or was refused, a server that wanted one, no common TLS version, and TLS alerts that libcurl
/// reports as a receive error (TLS 1.3 sends the server's verdict on the client certificate after
/// the handshake, on the first read): never a lost connection, which would be retried.
extension CurlFailure {
    /// The server's TLS alerts that refuse a certificate the client showed.
    private static let refusalAlerts = [
        "alert bad certificate", "alert unknown ca", "alert certificate expired", "alert certificate revoked",
        "alert certificate unknown", "alert unsupported certificate", "alert access denied",
    ]

    /// The error for a TLS failure libcurl reported with `code` and `text`, or `nil` when the
    /// failure is not about TLS (or plain libcurl classification says all there is to say).
    static func tlsError(
        code: Int32, text: String, configuration: CurlTransport.Configuration, request: HTTPRequest
    ) -> APIError? {
        let lowered = text.lowercased()
        let showsCertificate =
            configuration.tls.clientCertificate != nil
            || configuration.proxyTLS.clientCertificate != nil
        func error(_ failure: TransportFailure, _ advice: String) -> APIError {
            APIError(.transport(failure), message: "\(text): \(advice)", request: request)
        }
        switch Int(code) {
        case CCURLE_SSL_CERTPROBLEM where lowered.contains("pkcs12") && lowered.contains("unsupported"):
            // OpenSSL 3 without its legacy provider reads no bundle protected with RC2 or 3DES.
            return error(
                .clientCertificateRejected,
                "the PKCS#12 bundle uses a legacy algorithm (RC2, 3DES) OpenSSL 3 refuses; export it again with"
                    + " `openssl pkcs12 -export` (AES-256) or convert it to PEM")
        case CCURLE_SSL_CERTPROBLEM:
            return error(
                .clientCertificateRejected,
                "the client certificate could not be used; check that its files exist and are readable, that the"
                    + " key belongs to the certificate, and the passphrase")
        case CCURLE_SSL_CLIENTCERT:
            return error(
                .clientCertificateRejected, "the server wants a client certificate (TLSOptions.clientCertificate)")
        case CCURLE_PEER_FAILED_VERIFICATION where showsCertificate && text == "SSL certificate verification failed":
            // libcurl's words for the server's `certificate expired` alert when the server's own
            // chain verified: it is the client certificate that expired.
            return error(.clientCertificateRejected, "the server refused the client certificate as expired")
        default:
            break
        }
        if lowered.contains("alert certificate required") {
            return error(
                .clientCertificateRejected,
                showsCertificate
                    ? "the server wants a client certificate and did not take the one shown"
                    : "the server wants a client certificate (TLSOptions.clientCertificate)")
        }
        if showsCertificate, refusalAlerts.contains(where: lowered.contains) {
            return error(
                .clientCertificateRejected,
                "the server refused the client certificate; check that a CA it trusts signed it, that it is"
                    + " still valid, and that it is meant for client authentication")
        }
        if lowered.contains("alert handshake failure"), !showsCertificate {
            return error(
                .tls,
                "the TLS handshake failed; if the server wants a client certificate, set TLSOptions.clientCertificate")
        }
        if lowered.contains("alert protocol version") || lowered.contains("unsupported protocol") {
            return error(.tls, "no TLS version both sides accept (\(oldestAccepted(configuration)))")
        }
        if Int(code) == CCURLE_RECV_ERROR || Int(code) == CCURLE_SEND_ERROR, lowered.contains(" alert ") {
            // Any other TLS alert on a read or a write: the peer ended TLS on purpose.
            return APIError(.transport(.tls), message: text, request: request)
        }
        return nil
    }

    /// The oldest TLS version accepted, for the origin and, behind an HTTPS proxy, for the proxy:
    /// libcurl's text does not say which of the two handshakes failed.
    static func oldestAccepted(_ configuration: CurlTransport.Configuration) -> String {
        let origin = configuration.tls.minimumVersion.rawValue
        guard configuration.proxy?.scheme?.lowercased() == "https" else {
            return "the oldest accepted here is \(origin)"
        }
        let proxy = configuration.proxyTLS.minimumVersion.rawValue
        return "the oldest accepted here is \(origin) for the origin, \(proxy) for the HTTPS proxy (proxyTLS)"
    }

    /// The error of a transfer whose SOCKS proxy refused it: its user and password (or the lack of
    /// them) is ``TransportFailure/proxyAuthenticationRequired``; any other SOCKS failure stays
    /// ``TransportFailure/cannotConnect``. `nil` when the failure was not the SOCKS proxy's.
    static func socksRefusal(of easy: OpaquePointer, code: Int32, text: String, request: HTTPRequest) -> APIError? {
        guard Int(code) == CCURLE_PROXY else { return nil }
        var detail = 0
        guard ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_PROXY_ERROR), &detail) == 0,
            detail == CCURLPX_USER_REJECTED || detail == CCURLPX_NO_AUTH
        else { return nil }
        let advice =
            detail == CCURLPX_NO_AUTH
            ? "the SOCKS proxy wants a user name and password (Configuration.proxyCredential)"
            : "the SOCKS proxy refused the user name and password"
        return APIError(
            .transport(.proxyAuthenticationRequired), message: "\(text): \(advice); nothing reached the origin",
            request: request)
    }
}
