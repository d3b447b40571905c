import Foundation

/// A base URL taken apart once, so that building each request's URL is string concatenation and a
/// single parse rather than a round trip through `URLComponents`.
struct BaseURL: Sendable {
    /// The URL as given.
    let url: URL
    /// `scheme://authority`, percent-encoded; `nil` when the URL is not an absolute http(s) URL
    /// with a host (or an `http+unix` URL with a socket path). A `ws` or `wss` base is read as
    /// `http` or `https`.
    private let origin: String?
    /// The percent-encoded path without trailing slashes (possibly empty).
    private let path: String
    /// The percent-encoded query of the base URL, if it has one.
    private let query: String?

    init(_ url: URL) {
        self.url = url
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            var scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https" || scheme == "ws" || scheme == "wss"
                || UnixSocketURL.isSocketScheme(scheme),
            let host = components.host, !host.isEmpty
        else {
            origin = nil
            path = ""
            query = nil
            return
        }
        // RFC 6455 §3: ws and wss are http and https with another name; every call (a socket's
        // handshake included) goes out as the latter, so origins, cookies and credentials match.
        if scheme == "ws" || scheme == "wss" {
            scheme = scheme == "ws" ? "http" : "https"
            components.scheme = scheme
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
        query = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        components.percentEncodedPath = ""
        components.percentEncodedQuery = nil
        components.fragment = nil
        origin = components.string
    }

    /// The URL of `path` with `query` appended to this base.
    ///
    /// The path is already percent-encoded and has no leading slash (see ``Path``), so it cannot
    /// change the scheme, host or port: the result is `origin + basePath + "/" + path + "?" + query`.
    func appending(path route: Path, query items: [URLQueryItem], method: HTTPMethod) throws -> URL {
        func invalid(_ message: String) -> APIError {
            APIError(.invalidRequest, message: "\(method) \(Redaction.redact(url)): \(message)")
        }
        guard let origin else {
            throw invalid("the base URL must be an absolute http or https URL with a host")
        }
        if let problem = route.problem {
            throw invalid(problem)
        }
        var text = origin
        text += path
        if !route.encoded.isEmpty {
            text += "/"
            text += route.encoded
        } else if path.isEmpty {
            text += "/"
        }
        var separator = "?"
        if let query {
            text += separator
            text += query
            separator = "&"
        }
        if !items.isEmpty {
            text += separator
            text += PercentEncoding.encodeQuery(items.map { ($0.name, $0.value) })
        }
        guard let url = URL(string: text) else {
            throw invalid("the path \"\(route.encoded)\" does not make a valid URL")
        }
        return url
    }
}
