import Foundation

@testable import Courier
@testable import CourierImages

/// The response head parser, fed line by line as libcurl does: never traps, bounded time per byte,
/// and a parsed head re-serialised parses to the same status and fields.
let headParserTarget = FuzzTarget(name: "head") { input in
    let start = ContinuousClock.now
    var parser = ResponseHeadParser()
    var malformed = false
    var lineStart = 0
    while lineStart < input.count, !malformed {
        let end = input[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? input.count
        do throws(ResponseHeadParser.Malformed) {
            try parser.consume(UnsafeRawBufferPointer(rebasing: input[lineStart..<end]))
        } catch {
            malformed = true
        }
        lineStart = end
    }
    let elapsed = ContinuousClock.now - start
    if elapsed > .milliseconds(50) + .microseconds(20 * input.count) {
        violated("head: time per byte", "\(elapsed) for \(input.count) bytes")
    }
    guard !malformed, parser.isComplete, let status = parser.status else { return }
    var text = "HTTP/1.1 \(status) Reason\r\n"
    for field in parser.headers { text += "\(field.name.rawName): \(field.value)\r\n" }
    text += "\r\n"
    var again = ResponseHeadParser()
    // By bytes: "\r\n" is one Character, so a split on the Character "\n" would find no line.
    for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
        let bytes = Array(line) + [UInt8(ascii: "\n")]
        let problem: String? = bytes.withUnsafeBytes { buffer in
            do throws(ResponseHeadParser.Malformed) {
                try again.consume(buffer)
                return nil
            } catch {
                return error.reason
            }
        }
        if let problem { violated("head: a parsed head parses again", "\(problem)\n\(text.debugDescription)") }
    }
    guard again.isComplete, again.status == status, Array(again.headers) == Array(parser.headers) else {
        violated(
            "head: round trip",
            "\(String(describing: parser.status)) \(Array(parser.headers).map { "\($0.name.rawName)=\($0.value.debugDescription)" }) vs "
                + "\(String(describing: again.status)) \(Array(again.headers).map { "\($0.name.rawName)=\($0.value.debugDescription)" })"
        )
    }
}

/// Link headers: never traps; every link found is an absolute http(s) or relative-resolved URL.
let linkHeaderTarget = FuzzTarget(name: "link") { input in
    let value = String(decoding: input, as: UTF8.self)
    let response = HTTPResponse(status: .ok, headers: [.link: value], url: URL(string: "https://api.example.com/items"))
    for (relation, url) in response.links {
        if relation.isEmpty { violated("link: an empty relation", value.debugDescription) }
        if url.scheme == nil { violated("link: a relative URL left unresolved", url.absoluteString) }
    }
}

/// Cache-Control: never traps; ages are never negative.
let cacheControlTarget = FuzzTarget(name: "cache-control") { input in
    let control = CacheControl([.init("Cache-Control"): String(decoding: input, as: UTF8.self)])
    if let age = control.maxAge, age < 0 { violated("cache-control: negative max-age", "\(age)") }
    if let age = control.sharedMaxAge, age < 0 { violated("cache-control: negative s-maxage", "\(age)") }
}

/// HTTP dates and Retry-After: a date that parses formats back to text that parses to the same
/// second.
let httpDateTarget = FuzzTarget(name: "http-date") { input in
    let text = String(decoding: input, as: UTF8.self)
    guard let date = HTTPDate.parse(text) else { return }
    let formatted = HTTPDate.format(date)
    guard let again = HTTPDate.parse(formatted), Int(again.timeIntervalSince1970) == Int(date.timeIntervalSince1970)
    else { violated("http-date: round trip", "\(text.debugDescription) → \(formatted)") }
}

/// Media types: the type is lowercased, has no parameters, and matches itself and `*/*`.
let mediaTypeTarget = FuzzTarget(name: "media-type") { input in
    let type = ContentTypeCheck.mediaType(of: String(decoding: input, as: UTF8.self))
    // By bytes: Swift's String comparison treats U+037E GREEK QUESTION MARK as equal to ";".
    if type.utf8.contains(UInt8(ascii: ";")) || Array(type.utf8) != Array(type.lowercased().utf8) {
        violated("media-type: normalised", type.debugDescription)
    }
    if !ContentTypeCheck.matches(type, pattern: "*/*") || !ContentTypeCheck.matches(type, pattern: type) {
        violated("media-type: matches itself and */*", type.debugDescription)
    }
    if Array(ContentTypeCheck.mediaType(of: type).utf8)
        != Array(type.trimmingCharacters(in: .init(charactersIn: " \t")).utf8)
    {
        violated("media-type: idempotent", type.debugDescription)
    }
}

/// Content-Disposition → a file name: never empty, never a dot name, never a path, never hidden.
let fileNameTarget = FuzzTarget(name: "file-name") { input in
    var reader = FuzzReader(input)
    let path = reader.string(maximum: 40).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "x"
    let disposition = String(decoding: reader.rest(), as: UTF8.self)
    let url = URL(string: "https://example.com/\(path)") ?? URL(string: "https://example.com/")!
    let head = HTTPResponse(status: .ok, headers: [.contentDisposition: disposition], url: url)
    let name = SuggestedFileName.name(for: head, requestURL: url)
    if name.isEmpty || name == "." || name == ".." || name.hasPrefix(".") || name.contains("/")
        || name.contains("\0")
    {
        violated("file-name: safe", "\(name.debugDescription) from \(disposition.debugDescription)")
    }
}

/// Image headers: a size only with a recognised format, and only positive.
let imageHeaderTarget = FuzzTarget(name: "image-header") { input in
    let data = Data(input)
    guard let format = ImageFormat(sniffing: data) else { return }
    if let size = ImageHeader.pixelSize(of: data, format: format), size.width <= 0 || size.height <= 0 {
        violated("image-header: a positive size", "\(size) for \(format)")
    }
}

/// The content decoder: never more output per call than asked for, and the same bytes (or the same
/// failure) whatever the pieces the input arrives in and the room each call has.
let inflateTarget = FuzzTarget(name: "inflate") { input in
    var reader = FuzzReader(input)
    let coding: ContentDecoder.Coding = reader.byte() % 2 == 0 ? .gzip : .deflate
    let room = Int(reader.byte()) + 1
    let cut = Int(reader.byte())
    let bytes = Data(reader.rest())
    func decode(_ pieces: [Data], room: Int) -> Data? {
        guard let decoder = try? ContentDecoder(coding) else { violated("inflate: zlib", "could not be loaded") }
        var output = Data()
        do {
            for piece in pieces {
                decoder.feed(piece)
                while true {
                    let decoded = try decoder.decode(maximum: room)
                    if decoded.count > room { violated("inflate: room", "\(decoded.count) bytes for \(room)") }
                    if decoded.isEmpty { break }
                    output.append(decoded)
                    // A bomb stops the property check, not the fuzzer: a megabyte shows it is bounded.
                    if output.count > 1 << 20 { return output.prefix(1 << 20) }
                }
            }
            try decoder.finish()
        } catch {
            return nil
        }
        return output
    }
    let split = min(cut, bytes.count)
    let whole = decode([bytes], room: 1 << 16)
    let halves = decode([bytes.prefix(split), bytes.dropFirst(split)].map { Data($0) }, room: room)
    if whole != halves {
        violated("inflate: pieces", "\(String(describing: whole?.count)) vs \(String(describing: halves?.count)) bytes")
    }
}
