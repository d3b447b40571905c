import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLProtocol` that answers from per-host handlers, so `URLSessionTransport` can be tested
/// without a network. Each test registers a handler for a host of its own (tests run in parallel).
final class StubURLProtocol: URLProtocol {
    // The handler table is shared by every instance and test; `lock` guards each access to it.

    /// What a handler tells the protocol to do.
    enum Answer: Sendable {
        /// Respond with status, headers and body chunks.
        case respond(status: Int, headers: [String: String], chunks: [Data])
        /// Fail with an error.
        case fail(URLError)
        /// Never answer (for deadlines and cancellation).
        case stall
    }

    /// A request as the protocol saw it.
    struct Seen: Sendable {
        let method: String
        let url: URL
        let headers: [String: String]
        let body: Data?
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var handlers: [String: @Sendable (Seen) -> Answer] = [:]
    nonisolated(unsafe) private static var seen: [String: [Seen]] = [:]

    /// Registers the handler for a host.
    static func handle(host: String, _ handler: @escaping @Sendable (Seen) -> Answer) {
        lock.lock()
        handlers[host] = handler
        seen[host] = []
        lock.unlock()
    }

    /// The requests seen for a host, in order.
    static func requests(host: String) -> [Seen] {
        lock.lock()
        defer { lock.unlock() }
        return seen[host] ?? []
    }

    /// A session configuration that routes every request through this protocol.
    static func sessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.self]
        return configuration
    }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let url = request.url!
        let host = url.host ?? ""
        let seenRequest = Seen(
            method: request.httpMethod ?? "GET", url: url, headers: request.allHTTPHeaderFields ?? [:],
            body: request.httpBody ?? request.httpBodyStream.map(Self.read)
        )
        Self.lock.lock()
        let handler = Self.handlers[host]
        Self.seen[host, default: []].append(seenRequest)
        Self.lock.unlock()
        switch handler?(seenRequest) ?? .fail(URLError(.cannotFindHost)) {
        case .respond(let status, let headers, let chunks):
            let response = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            for chunk in chunks { client?.urlProtocol(self, didLoad: chunk) }
            client?.urlProtocolDidFinishLoading(self)
        case .fail(let error):
            client?.urlProtocol(self, didFailWithError: error)
        case .stall:
            break
        }
    }

    override func stopLoading() {}

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
