import Foundation

/// A stored response and what the cache knows about it: when it was stored, until when it is fresh,
/// its validators, and the request header values it varies on.
struct CachedResponse: Sendable, Codable, Equatable {
    var status: Int
    /// The response's header fields but `Set-Cookie`, the answer to one exchange that a cache never
    /// replays: set only through `storedFields(of:)`, which leaves it out (by the initialiser and
    /// `replaceHeaders(with:)`), or read back from disk as it was written.
    private(set) var headers: [[String]]
    var body: Data
    /// The response's URL when it differs from the request's (after redirects), with its secret
    /// query values redacted; `nil` when it is the request's own URL, which the request supplies
    /// again when the entry is served (so no credential in a URL is ever stored).
    var url: URL?
    var storedAt: Date
    var freshUntil: Date
    /// A digest of the values the request had for each header the response's `Vary` names
    /// (lowercased): a `Cookie` or `Authorization` it varies on is never stored in clear.
    var varyValues: [String: String]

    init(response: HTTPResponse, request: HTTPRequest, storedAt: Date, freshUntil: Date) {
        status = response.status.code
        headers = Self.storedFields(of: response.headers)
        body = response.body
        if let responseURL = response.url, responseURL != request.url {
            let redacted = Redaction.redact(responseURL, extraNames: Redaction.lowercased(request.sensitiveQueryItems))
            url = URL(string: redacted)
        } else {
            url = nil
        }
        self.storedAt = storedAt
        self.freshUntil = freshUntil
        varyValues = [:]
        for name in Self.varyNames(of: response.headers) {
            varyValues[name] = Self.varyDigest(of: request, name: name)
        }
    }

    private static func varyDigest(of request: HTTPRequest, name: String) -> String {
        SHA256.hexDigest(request.headers.values(for: HTTPHeaders.Name(name)).joined(separator: ", "))
    }

    /// What the entry costs in memory: the body, the head and the URL.
    var cost: Int {
        headers.reduce(body.count + (url?.absoluteString.utf8.count ?? 0) + 64) { total, pair in
            total + pair.reduce(16) { $0 + $1.utf8.count }
        } + varyValues.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// The header names a response's `Vary` lists, lowercased.
    static func varyNames(of headers: HTTPHeaders) -> [String] {
        headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
    }

    var httpHeaders: HTTPHeaders {
        HTTPHeaders(
            headers.compactMap { pair in
                pair.count == 2 ? HTTPHeaders.Field(name: HTTPHeaders.Name(pair[0]), value: pair[1]) : nil
            })
    }

    /// The response as the cache hands it out to `request`.
    func response(for request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(status: HTTPStatus(code: status), headers: httpHeaders, body: body, url: url ?? request.url)
    }

    var eTag: String? { httpHeaders[.eTag] }
    var lastModified: String? { httpHeaders[.lastModified] }

    func isFresh(at now: Date) -> Bool { now < freshUntil }

    /// Whether `request` asks for the same values of the headers this response varies on.
    func matchesVary(of request: HTTPRequest) -> Bool {
        varyValues.allSatisfy { name, digest in Self.varyDigest(of: request, name: name) == digest }
    }

    /// The fields of `headers` an entry keeps: all but `Set-Cookie`, in any spelling.
    private static func storedFields(of headers: HTTPHeaders) -> [[String]] {
        headers.filter { $0.name != .setCookie }.map { [$0.name.rawName, $0.value] }
    }

    /// Replaces the stored header fields with `headers`, but their `Set-Cookie`.
    mutating func replaceHeaders(with headers: HTTPHeaders) {
        self.headers = Self.storedFields(of: headers)
    }

    /// The stored headers updated by a `304 Not Modified`'s, for the stored body; a `Set-Cookie`
    /// of the 304 is among them (it answers this exchange) but `replaceHeaders(with:)` keeps
    /// it out of the entry.
    func revalidated(by notModified: HTTPResponse) -> HTTPHeaders {
        var merged = httpHeaders
        let keep: Set<HTTPHeaders.Name> = [.contentLength, .contentEncoding, .contentType]
        for field in notModified.headers where !keep.contains(field.name) {
            merged.set(field.name, field.value)
        }
        return merged
    }

    // MARK: On disk: a magic word, the metadata's length, the metadata as JSON, then the body.
    // The key (URL and credential digest) is kept only as a digest: nothing at rest names a secret.

    private static let magic = Data("CRC2".utf8)

    private struct Metadata: Codable {
        var status: Int
        var headers: [[String]]
        var url: URL?
        var storedAt: Date
        var freshUntil: Date
        var varyValues: [String: String]
        var keyDigest: String
        var bodyLength: Int
    }

    /// A digest of the key that is not the file's name (which is the key's plain SHA-256).
    private static func keyDigest(_ key: String) -> String {
        SHA256.hexDigest("courier cache entry\n" + key)
    }

    /// The entry as bytes for the disk store; the key is kept inside to detect hash collisions.
    func encoded(key: String) -> Data? {
        let metadata = Metadata(
            status: status, headers: headers, url: url, storedAt: storedAt, freshUntil: freshUntil,
            varyValues: varyValues, keyDigest: Self.keyDigest(key), bodyLength: body.count
        )
        guard let json = try? JSONEncoder().encode(metadata) else { return nil }
        var data = Self.magic
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(body)
        return data
    }

    /// The entry stored as `data` under `key`, or `nil` when the bytes are not a whole entry for it.
    init?(encoded data: Data, key: String) {
        let bytes = [UInt8](data.prefix(8))
        guard bytes.count == 8, Data(bytes.prefix(4)) == Self.magic else { return nil }
        let length = bytes[4...].reduce(0) { $0 << 8 | Int($1) }
        guard length <= data.count - 8 else { return nil }
        let start = data.startIndex + 8
        guard let metadata = try? JSONDecoder().decode(Metadata.self, from: data[start..<start + length]),
            metadata.keyDigest == Self.keyDigest(key), (100...599).contains(metadata.status),
            metadata.bodyLength == data.count - 8 - length
        else { return nil }
        status = metadata.status
        headers = metadata.headers
        url = metadata.url
        storedAt = metadata.storedAt
        freshUntil = metadata.freshUntil
        varyValues = metadata.varyValues
        body = Data(data[(start + length)...])
    }
}
