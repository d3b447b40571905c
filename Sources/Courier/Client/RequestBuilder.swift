import Foundation

/// Builds the ``HTTPRequest`` for a route: URL from base + path + query, headers, encoded body.
enum RequestBuilder {
    /// The request, and the temporary file its body was spilled into, if any (the caller removes it).
    static func makeRequest(
        for route: some Route,
        baseURL clientBaseURL: BaseURL,
        defaultHeaders: HTTPHeaders,
        encoder: JSONEncoder
    ) throws -> (request: HTTPRequest, temporaryFile: URL?) {
        let method = route.method
        let baseURL = route.baseURL.map(BaseURL.init) ?? clientBaseURL
        let query: [URLQueryItem]
        do {
            query = try route.query.items()
        } catch {
            throw APIError(
                .invalidRequest,
                message: "\(method) \(Redaction.redact(baseURL.url)): encoding the query failed: \(error)",
                underlyingError: error
            )
        }
        let url = try baseURL.appending(path: route.path, query: query, method: method)
        // The route's own keys, then the everyday properties (which read them unless overridden).
        var policies = route.policies
        policies.requiresAuthentication = route.requiresAuthentication
        policies.retry = route.retryPolicy
        policies.cache = route.cachePolicy
        var request = HTTPRequest(
            method: method, url: url, headers: route.headers.adding(defaults: defaultHeaders), timeout: route.timeout,
            idleTimeout: route.idleTimeout, policies: policies
        )
        var temporaryFile: URL?
        if let body = route.body {
            do {
                let encoded = try body.encoded(with: encoder)
                request.body = encoded.body
                temporaryFile = encoded.temporaryFile
                if !request.headers.contains(.contentType) {
                    request.headers[.contentType] = encoded.contentType
                }
                if let length = encoded.body.length, !request.headers.contains(.contentLength) {
                    request.headers[.contentLength] = String(length)
                }
            } catch {
                throw APIError(
                    .invalidRequest, message: "encoding the request body failed: \(error)", request: request,
                    underlyingError: error
                )
            }
        }
        do {
            try RequestValidation.validate(request)
        } catch {
            if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
            throw error
        }
        return (request, temporaryFile)
    }
}

extension RequestBuilder {
    /// The route's method and URL alone, for an error about a call whose request was never built
    /// (no headers, so no credential); `nil` when the URL cannot be made.
    static func bareRequest(for route: some Route, baseURL clientBaseURL: BaseURL) -> HTTPRequest? {
        let baseURL = route.baseURL.map(BaseURL.init) ?? clientBaseURL
        guard let query = try? route.query.items(),
            let url = try? baseURL.appending(path: route.path, query: query, method: route.method)
        else { return nil }
        return HTTPRequest(method: route.method, url: url)
    }

    /// A call whose answer is not JSON (raw bytes, text, a download, a stream) asks for any type,
    /// unless its route names one or the client's default `Accept` is not Courier's JSON default.
    static func acceptAnyType(_ request: inout HTTPRequest, route: some Route, clientHeaders: HTTPHeaders) {
        guard !route.headers.contains(.accept), clientHeaders[.accept] == APIClient.defaultHeaders[.accept] else {
            return
        }
        request.headers[.accept] = "*/*"
    }
}
