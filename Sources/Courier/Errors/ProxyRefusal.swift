import Foundation

/// An HTTP proxy that would not open the tunnel to an HTTPS origin: it answered `CONNECT` with a
/// status other than 2xx, so nothing reached the origin.
///
/// A 407 is ``TransportFailure/proxyAuthenticationRequired`` (credentials missing or refused:
/// trying again changes nothing); any other status (403 by policy, 502 when the proxy could not
/// reach the origin) is ``TransportFailure/cannotConnect``. The error carries the proxy's status as
/// its response's, with no header and no URL: the proxy's URL may hold its password.
enum ProxyRefusal {
    /// The failure for the proxy's answer to `CONNECT`.
    static func failure(status: Int) -> TransportFailure {
        status == 407 ? .proxyAuthenticationRequired : .cannotConnect
    }

    /// The error for the proxy's answer to `CONNECT`.
    static func error(status: Int, request: HTTPRequest?, underlyingError: (any Error)? = nil) -> APIError {
        let answer = HTTPStatus(code: status)
        let advice =
            status == 407 ? ": it wants credentials, or refused those given" : "; nothing reached the origin"
        return APIError(
            .transport(failure(status: status)), message: "the proxy answered CONNECT with \(answer)\(advice)",
            request: request, response: HTTPResponse(status: answer), underlyingError: underlyingError)
    }

    /// The status in libcurl's message for a refused tunnel: `CONNECT tunnel failed, response 407`,
    /// or in older libcurl `Received HTTP code 407 from proxy after CONNECT`; `nil` for any other text.
    static func status(inCurlText text: String) -> Int? {
        let text = text.lowercased()
        let patterns = [
            (prefix: "connect tunnel failed, response ", suffix: ""),
            (prefix: "received http code ", suffix: " from proxy after connect"),
        ]
        for (prefix, suffix) in patterns {
            guard let start = text.range(of: prefix)?.upperBound else { continue }
            let digits = text[start...].prefix { $0.isASCII && $0.isNumber }
            guard digits.count == 3, let status = Int(digits), (100...599).contains(status),
                text[digits.endIndex...].hasPrefix(suffix)
            else { continue }
            return status
        }
        return nil
    }
}
