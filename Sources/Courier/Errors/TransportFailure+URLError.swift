import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TransportFailure {
    /// Classifies a `URLError`. On Linux many faults arrive as `.unknown` with only libcurl's text,
    /// and a garbage status line as `.unsupportedURL`; both are read carefully here.
    public init(classifying error: URLError) {
        switch error.code {
        case .timedOut:
            self = .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
            .internationalRoamingOff, .callIsActive, .dataNotAllowed:
            self = .cannotConnect
        case .networkConnectionLost:
            self = .connectionLost
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            self = .tooManyRedirects
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
            self = .tls
        case .badServerResponse, .cannotParseResponse, .cannotDecodeContentData, .cannotDecodeRawData,
            .zeroByteResource:
            self = .badResponse
        case .unsupportedURL:
            // Courier only sends absolute http(s) URLs, so FoundationNetworking's `.unsupportedURL`
            // means libcurl could not read the reply (e.g. a garbage status line).
            self = .badResponse
        case .dataLengthExceedsMaximum:
            self = .responseTooLarge
        case .unknown:
            self = Self(classifyingCurlText: URLErrorText.describe(error))
        default:
            self = .other
        }
    }

    /// Reads libcurl's error text, which is all Linux's URLSession passes on for many faults.
    init(classifyingCurlText text: String) {
        // A proxy's refusal to open a tunnel says "CONNECT", not "could not connect": read it first.
        if let status = ProxyRefusal.status(inCurlText: text) {
            self = ProxyRefusal.failure(status: status)
            return
        }
        let text = text.lowercased()
        let rules: [(words: [String], failure: TransportFailure)] = [
            (["ssl", "tls", "certificate"], .tls),
            (["timed out", "timeout"], .timedOut),
            (["couldn't connect", "could not connect", "failed to connect", "resolve host"], .cannotConnect),
            (
                [
                    "transfer closed", "connection reset", "recv failure", "send failure", "empty reply",
                    "connection died", "partial file",
                ], .connectionLost
            ),
            (
                [
                    "chunk", "header", "weird server reply", "unsupported protocol", "content encoding",
                    "error while processing content unencoding", "unrecognized content encoding",
                    "invalid", "malformed", "http/0.9",
                    // libcurl reports a response header over its 100 KB limit as running out of memory.
                    "out of memory",
                ], .badResponse
            ),
        ]
        self = rules.first { rule in rule.words.contains { text.contains($0) } }?.failure ?? .other
    }
}

/// The readable text of a `URLError`: libcurl's message when FoundationNetworking passed it on.
enum URLErrorText {
    static func describe(_ error: URLError) -> String {
        let text = error.localizedDescription
        if text.isEmpty || text.hasPrefix("The operation could not be completed") {
            return "URL error \(error.code.rawValue)"
        }
        return text
    }
}

extension APIError {
    /// A transport error from a `URLError`. A proxy's refusal of `CONNECT`, which FoundationNetworking
    /// passes on as `.unknown` with libcurl's text, carries the proxy's status.
    init(urlError: URLError, request: HTTPRequest) {
        if urlError.code == .unknown, let status = ProxyRefusal.status(inCurlText: URLErrorText.describe(urlError)) {
            self = ProxyRefusal.error(status: status, request: request, underlyingError: urlError)
            return
        }
        self.init(
            .transport(TransportFailure(classifying: urlError)), message: URLErrorText.describe(urlError),
            request: request, underlyingError: urlError
        )
    }
}
