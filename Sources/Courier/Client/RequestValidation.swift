import Foundation

/// The checks every request passes just before it reaches the transport, after every middleware,
/// and again in each transport for every hop it sends (a transport may be called directly): nothing
/// unsafe is ever sent.
enum RequestValidation {
    static func validate(_ request: HTTPRequest) throws {
        guard request.method.isValidToken else {
            throw APIError(
                .invalidRequest, message: "the method \"\(request.method)\" is not a valid HTTP method token",
                request: request
            )
        }
        let scheme = request.url.scheme?.lowercased()
        // The percent-encoded host: the same emptiness, without an IDNA conversion per request.
        guard scheme == "http" || scheme == "https" || UnixSocketURL.isSocketScheme(scheme),
            let host = request.url.host(percentEncoded: true), !host.isEmpty
        else {
            throw APIError(
                .invalidRequest, message: "only absolute http, https and http+unix URLs can be sent", request: request
            )
        }
        if request.method == .head, request.body != nil {
            throw APIError(
                .invalidRequest, message: "a HEAD request cannot have a body (its response never has one)",
                request: request
            )
        }
        if let (field, reason) = request.headers.firstInvalidField() {
            let name = field.name.rawName.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()
            throw APIError(
                .invalidRequest, message: "the header \"\(name)\" cannot be sent: \(reason)", request: request
            )
        }
    }
}
