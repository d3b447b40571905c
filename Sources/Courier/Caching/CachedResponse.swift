import Foundation

/// A stored response and what the cache knows about it: when it was stored, until when it is fresh,
/// its validators, and the request header values it varies on.
struct CachedResponse: Sendable, Codable, Equatable {
    var status: Int
    var headers: [[String]]
    var body: Data
    var url: URL?
    var storedAt: Date
    var freshUntil: Date
    /// The values the request had for each header the response's `Vary` names (lowercased).
    var varyValues: [String: String]

    init(response: HTTPResponse, request: HTTPRequest, storedAt: Date, freshUntil: Date) {
        status = response.status.code
        headers = response.headers.map { [$0.name.rawName, $0.value] }
        body = response.body
        url = response.url
        self.storedAt = storedAt
        self.freshUntil = freshUntil
        varyValues = [:]
        for name in Self.varyNames(of: response.headers) {
            varyValues[name] = request.headers.values(for: HTTPHeaders.Name(name)).joined(separator: ", ")
        }
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

    /// The response as the cache hands it out.
    var response: HTTPResponse {
        HTTPResponse(status: HTTPStatus(code: status), headers: httpHeaders, body: body, url: url)
    }

    var eTag: String? { httpHeaders[.eTag] }
    var lastModified: String? { httpHeaders[.lastModified] }

    func isFresh(at now: Date) -> Bool { now < freshUntil }

    /// Whether `request` asks for the same values of the headers this response varies on.
    func matchesVary(of request: HTTPRequest) -> Bool {
        varyValues.allSatisfy { name, value in
            request.headers.values(for: HTTPHeaders.Name(name)).joined(separator: ", ") == value
        }
    }

    /// The entry after a `304 Not Modified`: the stored body under the 304's updated headers.
    func revalidated(by notModified: HTTPResponse) -> HTTPHeaders {
        var merged = httpHeaders
        let keep: Set<HTTPHeaders.Name> = [.contentLength, .contentEncoding, .contentType]
        for field in notModified.headers where !keep.contains(field.name) {
            merged.set(field.name, field.value)
        }
        return merged
    }

    // MARK: On disk: a magic word, the metadata's length, the metadata as JSON, then the body.

    private static let magic = Data("CRC1".utf8)

    private struct Metadata: Codable {
        var status: Int
        var headers: [[String]]
        var url: URL?
        var storedAt: Date
        var freshUntil: Date
        var varyValues: [String: String]
        var key: String
        var bodyLength: Int
    }

    /// The entry as bytes for the disk store; the key is kept inside to detect hash collisions.
    func encoded(key: String) -> Data? {
        let metadata = Metadata(
            status: status, headers: headers, url: url, storedAt: storedAt, freshUntil: freshUntil,
            varyValues: varyValues, key: key, bodyLength: body.count
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
            metadata.key == key, (100...599).contains(metadata.status),
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
