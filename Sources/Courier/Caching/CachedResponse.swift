import Foundation

/// A stored response and what the cache knows about it: when it was received, how old it was
/// then and how long it stays fresh (RFC 9111 §4.2), its validators, and the request header values
/// it varies on.
struct CachedResponse: Sendable, Codable, Equatable {
    var status: Int
    /// The response's header fields that a cache may keep: never `Set-Cookie` (the answer to one
    /// exchange), hop-by-hop fields, fields the `Connection` field names, or `Age` (recomputed on
    /// every hit). Set only through `storedFields(of:)`, by the initialisers (from disk too) and
    /// `replaceHeaders(with:)`.
    private(set) var headers: [[String]]
    var body: Data
    /// The response's URL when it differs from the request's (after redirects), with its secret
    /// query values redacted; `nil` when it is the request's own URL, which the request supplies
    /// again when the entry is served (so no credential in a URL is ever stored).
    var url: URL?
    /// When the response was received (`response_time`, §4.2.3).
    var storedAt: Date
    /// Its age when it was received (`corrected_initial_age`, §4.2.3).
    var correctedInitialAge: TimeInterval
    /// How long it is fresh, counted from its origin (§4.2.1), or a route's time to live.
    var freshnessLifetime: TimeInterval
    /// A digest of the values the request had for each header the response's `Vary` names
    /// (lowercased), normalised (§4.1): a `Cookie` or `Authorization` it varies on is never
    /// stored in clear.
    var varyValues: [String: String]

    init(
        response: HTTPResponse, request: HTTPRequest, storedAt: Date, correctedInitialAge: TimeInterval,
        freshnessLifetime: TimeInterval
    ) {
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
        self.correctedInitialAge = correctedInitialAge
        self.freshnessLifetime = freshnessLifetime
        varyValues = [:]
        for name in Self.varyNames(of: response.headers) {
            varyValues[name] = Self.varyDigest(of: request, name: name)
        }
    }

    /// Takes the `Vary` values anew from `request` when the stored `Vary` names other headers than
    /// the ones they were taken for: a `304` that changes `Vary` (§4.3.4) makes the entry the
    /// variant of the request that revalidated it, not of whoever stored it first.
    mutating func renominate(from request: HTTPRequest) {
        let names = Self.varyNames(of: httpHeaders)
        guard Set(names) != Set(varyValues.keys) else { return }
        varyValues = [:]
        for name in names { varyValues[name] = Self.varyDigest(of: request, name: name) }
    }

    /// The digest of what `request` nominates for `name`: field lines combined, list members
    /// trimmed of whitespace, lowercased for the fields whose values ignore case; an absent field
    /// differs from an empty one.
    private static func varyDigest(of request: HTTPRequest, name: String) -> String {
        let lines = request.headers.values(for: HTTPHeaders.Name(name))
        guard !lines.isEmpty else { return "absent" }
        var members = lines.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if caseInsensitiveValues.contains(name) { members = members.map { $0.lowercased() } }
        return SHA256.hexDigest(members.joined(separator: ","))
    }

    /// Request fields whose values are case-insensitive tokens (RFC 9110 §12.5).
    private static let caseInsensitiveValues: Set<String> = [
        "accept", "accept-charset", "accept-encoding", "accept-language",
    ]

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

    /// The response as the cache hands it out to `request` at `now`, with its `Age` (§5.1).
    func response(for request: HTTPRequest, at now: Date) -> HTTPResponse {
        var headers = httpHeaders
        headers.set("Age", String(Int(min(currentAge(at: now), Double(CacheControl.deltaSecondsLimit)))))
        return HTTPResponse(status: HTTPStatus(code: status), headers: headers, body: body, url: url ?? request.url)
    }

    var eTag: String? { httpHeaders[.eTag] }
    var lastModified: String? { httpHeaders[.lastModified] }

    /// Its age at `now` (`current_age`, §4.2.3): its age when received plus the time since.
    func currentAge(at now: Date) -> TimeInterval {
        correctedInitialAge + max(0, now.timeIntervalSince(storedAt))
    }

    /// How long it has been stale at `now`: negative while it is fresh.
    func staleness(at now: Date) -> TimeInterval { currentAge(at: now) - freshnessLifetime }

    func isFresh(at now: Date) -> Bool { freshnessLifetime > currentAge(at: now) }

    /// Whether `request` asks for the same values of the headers this response varies on.
    func matchesVary(of request: HTTPRequest) -> Bool {
        varyValues.allSatisfy { name, digest in Self.varyDigest(of: request, name: name) == digest }
    }

    /// Fields a cache never keeps: hop-by-hop ones (RFC 9110 §7.6.1), `Proxy-Authentication-Info`
    /// (RFC 9111 §3.1), `Set-Cookie` (one exchange's answer) and `Age` (recomputed on each hit).
    private static let neverStored: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authorization", "proxy-authentication-info", "set-cookie", "set-cookie2",
        "age",
    ]

    /// The names of `headers` a cache must not keep: `neverStored`, and every name the
    /// `Connection` fields list (RFC 9111 §3.1).
    static func excludedNames(of headers: HTTPHeaders) -> Set<String> {
        neverStored.union(
            headers.values(for: "Connection").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }

    /// The fields of `headers` an entry keeps.
    private static func storedFields(of headers: HTTPHeaders) -> [[String]] {
        let excluded = excludedNames(of: headers)
        return headers.filter { !excluded.contains($0.name.canonicalName) }.map { [$0.name.rawName, $0.value] }
    }

    /// Replaces the stored header fields with `headers`, but those a cache never keeps.
    mutating func replaceHeaders(with headers: HTTPHeaders) {
        self.headers = Self.storedFields(of: headers)
    }

    /// The stored headers updated by a `304 Not Modified`'s (§3.2, §4.3.4): each field the 304
    /// sends replaces the stored fields of its name, but the ones the stored body depends on
    /// (`Content-Length`, `Content-Encoding`, `Content-Type`, `Content-Range`) and the ones a cache
    /// never keeps (the 304's own `Connection` list included). A `Set-Cookie` of the 304 is left
    /// out too: the caller adds it to this exchange's answer only.
    func revalidated(by notModified: HTTPResponse) -> HTTPHeaders {
        var merged = httpHeaders
        let keep: Set<HTTPHeaders.Name> = [.contentLength, .contentEncoding, .contentType, "Content-Range"]
        let excluded = Self.excludedNames(of: notModified.headers)
        let updates = notModified.headers.filter {
            !keep.contains($0.name) && !excluded.contains($0.name.canonicalName)
        }
        for name in Set(updates.map(\.name)) { merged.remove(name) }
        for field in updates { merged.add(field.name, field.value) }
        return merged
    }

    // MARK: On disk: a magic word, the metadata's length, the metadata as JSON, then the body.
    // The key (URL and credential digest) is kept only as a digest: nothing at rest names a secret.

    private static let magic = Data("CRC3".utf8)

    private struct Metadata: Codable {
        var status: Int
        var headers: [[String]]
        var url: URL?
        var storedAt: Date
        var correctedInitialAge: TimeInterval
        var freshnessLifetime: TimeInterval
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
            status: status, headers: headers, url: url, storedAt: storedAt, correctedInitialAge: correctedInitialAge,
            freshnessLifetime: freshnessLifetime,
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
        // Filtered again: bytes on disk are never trusted to have been written by this version.
        headers = Self.storedFields(
            of: HTTPHeaders(
                metadata.headers.compactMap { pair in
                    pair.count == 2 ? HTTPHeaders.Field(name: HTTPHeaders.Name(pair[0]), value: pair[1]) : nil
                }))
        url = metadata.url
        storedAt = metadata.storedAt
        correctedInitialAge = metadata.correctedInitialAge
        freshnessLifetime = metadata.freshnessLifetime
        varyValues = metadata.varyValues
        body = Data(data[(start + length)...])
    }
}
