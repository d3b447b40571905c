import Foundation

/// Reads a response head line by line, as libcurl hands the lines over: the status line, header
/// fields in order (repeats kept), obsolete line folding, interim `1xx` heads skipped. Linear in
/// the number and size of the lines.
struct ResponseHeadParser {
    /// The status of the head being read, once its status line arrived.
    private(set) var status: Int?
    /// The header fields so far, in the order they arrived.
    private var fields: [HTTPHeaders.Field] = []
    /// The header fields so far, in the order they arrived.
    var headers: HTTPHeaders { HTTPHeaders(fields) }
    /// Whether a final (non-`1xx`) head is complete.
    private(set) var isComplete = false

    /// Why a line could not be read.
    struct Malformed: Error {
        let reason: String
    }

    /// Takes one line, with or without its line ending. A status line after a complete head starts
    /// a new head, and the last head wins: a proxy's `200 Connection established` followed by the
    /// origin's head yields the origin's. Other lines after a complete head (trailers) are ignored.
    mutating func consume(_ line: UnsafeRawBufferPointer) throws(Malformed) {
        var bytes = line[...]
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") {
            bytes = bytes.dropLast()
        }
        if isComplete {
            // A field name cannot contain "/", so a trailer never looks like a status line.
            guard bytes.starts(with: Self.httpPrefix) else { return }
            isComplete = false
        }
        if bytes.isEmpty {
            guard let status else { throw Malformed(reason: "the response has no status line") }
            if (100..<200).contains(status) {
                // An interim response (100 Continue, 103 Early Hints): the real one follows.
                self.status = nil
                fields.removeAll(keepingCapacity: true)
            } else {
                isComplete = true
            }
            return
        }
        if bytes.starts(with: Self.httpPrefix) {
            status = try Self.statusCode(of: bytes)
            fields.removeAll(keepingCapacity: true)
            return
        }
        guard status != nil else { throw Malformed(reason: "the response does not start with a status line") }
        if let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            // Obsolete line folding (RFC 9112 §5.2): the line continues the previous field's value.
            guard let last = fields.last else { throw Malformed(reason: "the first header line is a continuation") }
            // Joined with one space, and none when either side is empty (found by fuzzing: folding
            // onto an empty value left a leading space).
            let more = Self.trimmed(bytes)
            let joined = last.value.isEmpty ? more : more.isEmpty ? last.value : last.value + " " + more
            fields[fields.count - 1] = HTTPHeaders.Field(name: last.name, value: joined)
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex else {
            throw Malformed(reason: "a header line has no name")
        }
        let value = Self.trimmed(bytes[(colon + 1)...])
        // Room for a usual head at once, rather than growing through 1, 2, 4 and 8 fields.
        if fields.isEmpty { fields.reserveCapacity(16) }
        fields.append(HTTPHeaders.Field(name: HTTPHeaders.Name(bytes: bytes[..<colon]), value: value))
    }

    private static let httpPrefix = Array("HTTP/".utf8)

    /// The three-digit code of a status line such as `HTTP/1.1 200 OK` or `HTTP/2 204`.
    private static func statusCode(of line: Slice<UnsafeRawBufferPointer>) throws(Malformed) -> Int {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else {
            throw Malformed(reason: "the status line has no status code")
        }
        let digits = line[(space + 1)...].prefix(3)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw Malformed(reason: "the status line has no three-digit status code")
        }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        // RFC 9110 §15: 100 to 599 are defined, up to 999 is a valid code; 000 to 099 is not one.
        guard code >= 100 else { throw Malformed(reason: "the status code \(code) is not an HTTP status") }
        return code
    }

    /// The bytes as text, without surrounding spaces and tabs; a CR, LF or NUL inside becomes a
    /// space, as RFC 9110 §5.5 asks of a recipient (found by fuzzing: a bare CR stayed in values).
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let forbidden: (UInt8) -> Bool = { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") || $0 == 0 }
        // Forbidden bytes count as spaces, so they are trimmed at the ends like spaces.
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || forbidden($0) }
        var trimmed = bytes
        while let first = trimmed.first, isBlank(first) { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, isBlank(last) { trimmed = trimmed.dropLast() }
        guard trimmed.contains(where: forbidden) else { return String(decoding: trimmed, as: UTF8.self) }
        return String(decoding: trimmed.map { forbidden($0) ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}
