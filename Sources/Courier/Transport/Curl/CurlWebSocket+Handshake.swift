import Foundation

/// The opening handshake on the connection libcurl made: the `GET` Courier writes, the head it
/// reads back, and the body of a refused handshake.
extension CurlWebSocket {
    /// How a refused handshake's body ends.
    enum RefusalFraming {
        case length(Int)
        case chunked
        case untilClose
    }

    /// The URL libcurl connects to: `ws` and `wss` become `http` and `https` (libcurl here has no
    /// WebSocket support of its own, and needs none: it only connects).
    static func connectURL(for url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        switch components.scheme?.lowercased() {
        case "ws": components.scheme = "http"
        case "wss": components.scheme = "https"
        default: return url
        }
        return components.url ?? url
    }

    /// The handshake's bytes: `GET path?query HTTP/1.1`, `Host` (with the port when it is not the
    /// scheme's), then the request's headers but `Proxy-*` ones (those go to the proxy, with
    /// `CONNECT`). A header value with CR or LF is refused.
    static func handshakeBytes(for request: HTTPRequest, wireURL: URL) throws -> [UInt8] {
        let url = wireURL
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var text = "GET \(target) HTTP/1.1\r\n"
        if !request.headers.contains(.host) {
            text += "Host: \(hostField(url))\r\n"
        }
        for field in request.headers where !CurlTransfer.isProxyHeader(field.name) {
            guard !field.value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw APIError(
                    .transport(.other), message: "the header \(field.name.rawName) has a line break in its value",
                    request: request)
            }
            text += "\(field.name.rawName): \(field.value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The `Host` field of a URL: its host (IPv6 in brackets) and its port unless the scheme's own.
    private static func hostField(_ url: URL) -> String {
        var host = url.host(percentEncoded: true) ?? "localhost"
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let defaultPort = UnixSocketURL.isSecure(url.scheme?.lowercased()) ? 443 : 80
        guard let port = url.port, port != defaultPort else { return host }
        return "\(host):\(port)"
    }

    /// Reads until the head ended and acts on it: `.done` once it did (the phase moved on). One
    /// read per turn of the loop, so a server that sends without end never keeps the loop thread
    /// (nor the handshake's deadline) waiting.
    func readHead(buffer: inout [UInt8]) throws -> Progress {
        var hasRead = false
        while true {
            if let end = headEnd() {
                let head = Array(incoming[..<end])
                incoming.removeFirst(end)
                headScanned = 0
                if try takeHead(head) { return .done }
                continue
            }
            guard incoming.count <= Self.maximumHeadSize else {
                throw APIError(
                    .transport(.badResponse), message: "the handshake's response head is over 1 MiB", request: request)
            }
            if hasRead { return .again }
            hasRead = true
            guard let count = try receive(into: &buffer) else { return .wouldBlock }
            guard count > 0 else {
                throw APIError(
                    .transport(.badResponse),
                    message: "the server closed the connection before its response head ended",
                    request: request)
            }
            incoming.append(contentsOf: buffer[0..<count])
        }
    }

    /// Where the head in `incoming` ends (after its blank line), if it has.
    private func headEnd() -> Int? {
        var index = max(0, headScanned)
        while index < incoming.count {
            if incoming[index] == UInt8(ascii: "\n") {
                var next = index + 1
                if next < incoming.count, incoming[next] == UInt8(ascii: "\r") { next += 1 }
                if next < incoming.count, incoming[next] == UInt8(ascii: "\n") { return next + 1 }
                if next >= incoming.count {
                    headScanned = index
                    return nil
                }
            }
            index += 1
        }
        headScanned = index
        return nil
    }

    /// Acts on a complete head: `false` for an interim `1xx` (another head follows).
    private func takeHead(_ head: [UInt8]) throws -> Bool {
        var parser = ResponseHeadParser()
        var lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // The blank line and what follows the last LF: the parser would take a `101` for interim.
        while let last = lines.last, last.isEmpty || last == [UInt8(ascii: "\r")] { lines.removeLast() }
        for line in lines {
            let problem: String? = Array(line).withUnsafeBytes { bytes in
                do throws(ResponseHeadParser.Malformed) {
                    try parser.consume(bytes)
                    return nil
                } catch {
                    return error.reason
                }
            }
            if let problem { throw APIError(.transport(.badResponse), message: problem, request: request) }
        }
        guard let status = parser.status else {
            throw APIError(.transport(.badResponse), message: "the response has no status line", request: request)
        }
        if (100..<200).contains(status), status != 101 {
            interimHeads += 1
            guard interimHeads <= Self.maximumInterimHeads else {
                throw APIError(
                    .transport(.badResponse),
                    message: "the server sent more than \(Self.maximumInterimHeads) interim (1xx) responses "
                        + "before answering the handshake", request: request)
            }
            return false
        }
        let response = HTTPResponse(status: HTTPStatus(code: status), headers: parser.headers, url: request.url)
        if status == 101 {
            // What came after the head (a first frame in the same packet) is the first read's.
            let opening = shared.withLock { shared in
                shared.leftover = incoming
                defer { shared.opening = nil }
                return shared.opening
            }
            incoming = []
            phase = .open
            opening?.resume(returning: (response, CurlWebSocketChannel(self)))
            return true
        }
        phase = .readingRefusal(response, try Self.framing(of: response, request: request))
        return true
    }

    private static func framing(of response: HTTPResponse, request: HTTPRequest) throws -> RefusalFraming {
        if response.status.code == 204 || response.status.code == 304 { return .length(0) }
        if let coding = response.headers[.transferEncoding], coding.lowercased().contains("chunked") {
            return .chunked
        }
        guard let text = response.headers[.contentLength] else { return .untilClose }
        guard let length = Int(text.trimmingCharacters(in: .whitespaces)), length >= 0 else {
            throw APIError(
                .transport(.badResponse), message: "the Content-Length \(text) is not a length", request: request)
        }
        guard length <= maximumRefusalBody else {
            throw APIError(
                .transport(.responseTooLarge), message: "the refused handshake's body is over 1 MiB", request: request)
        }
        return .length(length)
    }

    /// Reads a refused handshake's body: `.done` once the response went to the caller (the
    /// connection is closed then). One read per turn of the loop, as ``readHead(buffer:)``.
    func readRefusal(_ response: HTTPResponse, framing: RefusalFraming, buffer: inout [UInt8]) throws -> Progress {
        var hasRead = false
        while true {
            var body: [UInt8]?
            switch framing {
            case .length(let length): if incoming.count >= length { body = Array(incoming.prefix(length)) }
            case .chunked:
                // Each byte decoded once, as it came.
                do throws(ChunkedBodyDecoder.Failure) {
                    try refusalDecoder.feed(incoming[...])
                } catch .tooLarge {
                    throw APIError(
                        .transport(.responseTooLarge), message: "the refused handshake's body is over 1 MiB",
                        request: request)
                } catch .malformed(let reason) {
                    throw APIError(.transport(.badResponse), message: reason, request: request)
                }
                incoming.removeAll(keepingCapacity: true)
                if refusalDecoder.isComplete { body = refusalDecoder.body }
            case .untilClose: break
            }
            if body == nil, incoming.count > Self.maximumRefusalBody * 2 {
                throw APIError(
                    .transport(.responseTooLarge), message: "the refused handshake's body is over 1 MiB",
                    request: request)
            }
            if body == nil {
                if hasRead { return .again }
                hasRead = true
                guard let count = try receive(into: &buffer) else { return .wouldBlock }
                if count > 0 {
                    // Framing included (chunk-size lines, extensions): a server that sends without
                    // end is stopped at a bound, whatever its chunks decode to.
                    refusalBytesRead += count
                    guard refusalBytesRead <= Self.maximumRefusalWire else {
                        throw APIError(
                            .transport(.responseTooLarge),
                            message: "the refused handshake's body is over "
                                + "\(Self.maximumRefusalWire >> 20) MiB on the wire", request: request)
                    }
                    incoming.append(contentsOf: buffer[0..<count])
                    continue
                }
                guard case .untilClose = framing else {
                    throw APIError(
                        .transport(.connectionLost), message: "the connection closed before the response body ended",
                        request: request)
                }
                guard incoming.count <= Self.maximumRefusalBody else {
                    throw APIError(
                        .transport(.responseTooLarge), message: "the refused handshake's body is over 1 MiB",
                        request: request)
                }
                body = incoming
            }
            var refused = response
            refused.body = Data(body ?? [])
            incoming = []
            let opening = shared.withLock { shared in
                shared.isClosed = true
                defer { shared.opening = nil }
                return shared.opening
            }
            opening?.resume(returning: (refused, nil))
            return .done
        }
    }
}
