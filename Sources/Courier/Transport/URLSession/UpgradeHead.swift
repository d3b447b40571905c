import Foundation

/// The HTTP/1.1 bytes of a WebSocket opening handshake for a transport that owns a raw byte stream
/// (URLSessionTransport's `URLSessionStreamTask` on Apple platforms): the request head to write,
/// the response head to read back, and the framing of a response that is not a `101` (its chunked
/// body goes through ``ChunkedBodyDecoder``). Pure values on
/// bytes, no I/O, so they are tested on every platform.
///
/// Rules (RFC 9112): the request line is `GET path?query HTTP/1.1`, `Host` comes first (with the port
/// when it is not the scheme's default), every field is sent as given (``RequestValidation``
/// checked them before the chain ran: no CR, LF or NUL can reach here). A response head ends at the
/// first empty line (CRLF CRLF; a bare LF ending is accepted too) and is at most ``maximumHeadSize``
/// bytes; its status line starts with `HTTP/1.` and has a three-digit code; each field line has a
/// name before a colon; obsolete line folding is refused. A body is framed by `Transfer-Encoding:
/// chunked`, else `Content-Length`, else the end of the connection.
enum UpgradeHead {
    /// The largest response head read: a larger one is not a WebSocket server's answer.
    static let maximumHeadSize = 64 * 1024

    /// Why a response head or body could not be read.
    struct Malformed: Error, Equatable {
        /// What was wrong, for the error's message.
        let reason: String
    }

    /// A response head: its status, its fields, and how many bytes of the buffer it took (the
    /// bytes after it are the connection's first data: a frame may share the `101`'s packet).
    struct Response: Equatable {
        let status: Int
        let headers: HTTPHeaders
        let length: Int
    }

    /// The request head for `request` (a `GET` with the handshake's fields already set).
    static func request(for request: HTTPRequest) -> [UInt8] {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var head = "\(request.method.rawValue) \(target) HTTP/1.1\r\n"
        if request.headers["Host"] == nil, let host = hostField(for: request.url) {
            head += "Host: \(host)\r\n"
        }
        for field in request.headers {
            head += "\(field.name.rawName): \(field.value)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// `host` or `host:port` (IPv6 in brackets), the port left out when it is the scheme's default.
    static func hostField(for url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port, port != defaultPort(isSecure: isSecure(url)) else { return bracketed }
        return "\(bracketed):\(port)"
    }

    /// Whether the URL asks for TLS: `wss` or `https`.
    static func isSecure(_ url: URL) -> Bool {
        ["wss", "https"].contains(url.scheme?.lowercased() ?? "")
    }

    /// 443 with TLS, 80 without.
    static func defaultPort(isSecure: Bool) -> Int { isSecure ? 443 : 80 }

    /// The response head at the start of `buffer`, or `nil` while its end has not arrived.
    ///
    /// - Throws: ``Malformed`` for a head that is not HTTP/1.x or is larger than ``maximumHeadSize``.
    static func response(in buffer: [UInt8]) throws(Malformed) -> Response? {
        guard let (headEnd, length) = endOfHead(in: buffer) else {
            if buffer.count > maximumHeadSize { throw Malformed(reason: "the response head is larger than 64 KiB") }
            return nil
        }
        guard headEnd <= maximumHeadSize else { throw Malformed(reason: "the response head is larger than 64 KiB") }
        var lines = buffer[..<headEnd].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
        let statusLine = lines.removeFirst()
        let status = try statusCode(of: statusLine)
        var fields: [HTTPHeaders.Field] = []
        for line in lines where !line.isEmpty {
            if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
                throw Malformed(reason: "the response head folds a header line")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw Malformed(reason: "a header line of the response has no name")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            fields.append(HTTPHeaders.Field(name: HTTPHeaders.Name(name), value: value))
        }
        return Response(status: status, headers: HTTPHeaders(fields), length: length)
    }

    /// Where the head's last line ends (before the empty line) and how many bytes the head takes
    /// with its empty line; `nil` until the empty line arrived.
    private static func endOfHead(in buffer: [UInt8]) -> (Int, Int)? {
        var index = buffer.startIndex
        while let newline = buffer[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < buffer.endIndex, buffer[next] == UInt8(ascii: "\n") { return (newline, next + 1) }
            if next + 1 < buffer.endIndex, buffer[next] == UInt8(ascii: "\r"), buffer[next + 1] == UInt8(ascii: "\n") {
                return (newline, next + 2)
            }
            index = next
        }
        return nil
    }

    private static func statusCode(of line: ArraySlice<UInt8>) throws(Malformed) -> Int {
        guard line.starts(with: Array("HTTP/1.".utf8)), let space = line.firstIndex(of: UInt8(ascii: " ")) else {
            throw Malformed(reason: "the response does not start with an HTTP/1.x status line")
        }
        let digits = line[(space + 1)...].prefix(3)
        let isCode = digits.count == 3 && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let afterCode = space + 4
        guard isCode, afterCode >= line.endIndex || line[afterCode] == UInt8(ascii: " ") else {
            throw Malformed(reason: "the status line has no three-digit status code")
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// How the body of a response that is not a `101` ends.
    enum BodyFraming: Equatable {
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// `Content-Length: N`.
        case length(Int)
        /// Neither: the body is whatever comes until the server closes the connection.
        case untilClose
    }

    /// The framing of a response body (RFC 9112 §6.3).
    ///
    /// - Throws: ``Malformed`` for a `Content-Length` that is not one non-negative number.
    static func framing(of headers: HTTPHeaders) throws(Malformed) -> BodyFraming {
        if let coding = headers["Transfer-Encoding"] {
            guard coding.lowercased().split(separator: ",").last?.trimmingCharacters(in: .whitespaces) == "chunked"
            else { return .untilClose }
            return .chunked
        }
        let lengths = Set(
            headers.values(for: "Content-Length").flatMap { $0.split(separator: ",") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        guard let first = lengths.first else { return .untilClose }
        guard lengths.count == 1, let length = Int(first), length >= 0 else {
            throw Malformed(reason: "the response's Content-Length is not one number")
        }
        return .length(length)
    }
}
