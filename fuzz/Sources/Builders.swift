import Foundation

@testable import Courier

/// Query items survive encoding: URLComponents, the reference decoder, reads back exactly the
/// names and values that went in, in order.
let queryTarget = FuzzTarget(name: "query") { input in
    var reader = FuzzReader(input)
    var items: [URLQueryItem] = []
    while !reader.isAtEnd, items.count < 8 {
        let name = reader.string(maximum: 16)
        let hasValue = reader.byte() % 4 != 0
        items.append(URLQueryItem(name: name, value: hasValue ? reader.string(maximum: 32) : nil))
    }
    guard
        let url = try? BaseURL(URL(string: "https://api.example.com/v1")!).appending(
            path: "search", query: items, method: .get)
    else { return }
    let decoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    // An item with neither name nor value carries nothing: URLComponents reads "a&" as two items
    // but "" as none, so such items are left out of the comparison.
    let meaningful = items.filter { !$0.name.isEmpty || $0.value != nil }
    let read = decoded.filter { !$0.name.isEmpty || $0.value != nil }
    if read.map(\.name) != meaningful.map(\.name) || read.map(\.value) != meaningful.map(\.value) {
        violated("query: round trip", "\(items) → \(url.absoluteString) → \(decoded)")
    }
}

/// A multipart body parses back, with a small parser of this target's own, to exactly the fields
/// and files that went in (names without `%`, which the encoding uses for its escapes).
let multipartTarget = FuzzTarget(name: "multipart") { input in
    var reader = FuzzReader(input)
    var form = MultipartForm()
    var expected: [(name: String, filename: String?, content: Data)] = []
    while !reader.isAtEnd, expected.count < 6 {
        let name = reader.string(maximum: 16).replacingOccurrences(of: "%", with: "")
        let isFile = reader.byte() % 2 == 0
        let filename = isFile ? reader.string(maximum: 16).replacingOccurrences(of: "%", with: "") : nil
        let content = reader.data(maximum: 128)
        form.append(content, name: name, filename: filename, contentType: "application/octet-stream")
        expected.append((name, filename, content))
    }
    guard let body = try? form.encodedData() else { return }
    let parts = MultipartParser.parse(body, boundary: form.boundary)
    guard parts.count == expected.count else {
        violated("multipart: part count", "\(parts.count) of \(expected.count)")
    }
    for (part, want) in zip(parts, expected) where part.name != want.name || part.filename != want.filename
        || part.content != want.content
    {
        violated("multipart: round trip", "\(part) vs \(want)")
    }
}

/// A minimal multipart/form-data reader: parts split at the boundary, the disposition's quoted
/// name and file name with the encoder's %-escapes undone.
enum MultipartParser {
    struct Part: CustomStringConvertible {
        var name: String?
        var filename: String?
        var content: Data
        var description: String { "\(name.debugDescription) \(filename.debugDescription) \(content.count) bytes" }
    }

    static func parse(_ body: Data, boundary: String) -> [Part] {
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [Part] = []
        var chunks: [Data] = []
        var rest = body[...]
        while let range = rest.range(of: delimiter) {
            chunks.append(Data(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        for chunk in chunks.dropFirst() {
            guard chunk.starts(with: Data("\r\n".utf8)), let split = chunk.range(of: Data("\r\n\r\n".utf8)) else {
                continue
            }
            let head = String(decoding: chunk[chunk.startIndex + 2..<split.lowerBound], as: UTF8.self)
            var content = Data(chunk[split.upperBound...])
            if content.suffix(2) == Data("\r\n".utf8) { content.removeLast(2) }
            parts.append(Part(name: parameter("name", in: head), filename: parameter("filename", in: head), content: content))
        }
        return parts
    }

    /// By bytes: a quote followed by a combining mark is one Character, which a String search misses.
    private static func parameter(_ name: String, in head: String) -> String? {
        let bytes = Array(head.utf8)
        let key = Array("; \(name)=\"".utf8)
        guard let start = (0...max(0, bytes.count - key.count)).first(where: { bytes[$0...].starts(with: key) }),
            bytes.count >= key.count
        else { return nil }
        let after = bytes[(start + key.count)...]
        guard let end = after.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: after[..<end], as: UTF8.self).replacingOccurrences(of: "%22", with: "\"")
            .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n")
            .replacingOccurrences(of: "%5C", with: "\\")
    }
}

/// Path interpolation: a value is one segment, never a dot segment, never two.
let pathTarget = FuzzTarget(name: "path") { input in
    let value = String(decoding: input, as: UTF8.self)
    let path: Path = "items/\(value)/detail"
    guard let url = try? BaseURL(URL(string: "https://api.example.com/v1")!).appending(path: path, query: [], method: .get)
    else { return }
    let segments = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath
        .split(separator: "/", omittingEmptySubsequences: false) ?? []
    guard segments.count == 5, segments[1] == "v1", segments[2] == "items", segments[4] == "detail" else {
        violated("path: one segment", "\(value.debugDescription) → \(url.absoluteString)")
    }
    let middle = segments[3].removingPercentEncoding ?? ""
    if middle == "." || middle == ".." || segments[3] == "." || segments[3] == ".." {
        violated("path: a dot segment", url.absoluteString)
    }
}

/// Redaction: a planted secret never survives the redactor, `curlCommand()` or an error's
/// description, wherever the fuzzer puts it around other text.
let redactionTarget = FuzzTarget(name: "redaction") { input in
    var reader = FuzzReader(input)
    let secret = "S3cr3t" + String(reader.byte() % 100)
    let noise = reader.string(maximum: 24).filter { $0.isLetter || $0.isNumber || $0 == " " }
    let place = reader.byte() % 6
    var components = URLComponents(string: "https://api.example.com/v1/items")!
    var headers: HTTPHeaders = ["Accept": "application/json"]
    var body: HTTPBody?
    var bodyData = Data()
    switch place {
    case 0: headers[.authorization] = "Bearer \(secret)"
    case 1: components.queryItems = [URLQueryItem(name: "api_key", value: secret), URLQueryItem(name: "q", value: noise)]
    case 2: headers[.cookie] = "session=\(secret); theme=\(noise)"
    case 3: components.user = "ada"; components.password = secret
    case 4:
        bodyData = Data(#"{"note": "\#(noise)", "password": "\#(secret)"}"#.utf8)
        body = .data(bodyData)
        headers[.contentType] = "application/json"
    default: headers["X-Api-Key"] = secret
    }
    guard let url = components.url else { return }
    let request = HTTPRequest(method: .post, url: url, headers: headers, body: body)
    let error = APIError(.transport(.timedOut), message: "timed out", request: request)
    let texts = [
        request.description, request.curlCommand(), error.description, String(describing: error),
        Redactor.standard.redact(headers).joined(separator: "; "),
        Redactor.standard.redact(body: bodyData, contentType: headers[.contentType]),
    ]
    for text in texts where text.contains(secret) {
        violated("redaction: the secret survived", "\(place): \(text)")
    }
}

/// Origins: scheme, host and effective port as URLComponents reads them.
let originTarget = FuzzTarget(name: "origin") { input in
    // A percent-encoded host is decoded once by URL.host and not by URLComponents.encodedHost:
    // the two readings differ by construction there, so such hosts are left out.
    guard let url = URL(string: String(decoding: input, as: UTF8.self)), let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https", url.host?.contains("%") != true,
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.encodedHost?.contains("%") != true
    else { return }
    let origin = Origin(url)
    let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    let port = components?.port ?? (scheme == "https" ? 443 : 80)
    // URLComponents keeps an IPv6 literal's brackets, URL.host drops them: the same host.
    // URLComponents may also decode an IDNA (xn--) label that URL.host keeps: compare encoded forms.
    let host = (components?.encodedHost?.lowercased() ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    let decoded = { (text: String) in text.removingPercentEncoding ?? text }
    if origin.scheme != scheme || decoded(origin.host) != decoded(host) || origin.port != port {
        violated("origin: agrees with URLComponents", "\(url.absoluteString): \(origin)")
    }
}
