import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, from memory or from disk.
///
/// ```swift
/// var form = MultipartForm()
/// form.append("A day at the beach", name: "caption")
/// form.append(fileAt: URL(fileURLWithPath: "/tmp/beach.jpg"), name: "photo")   // image/jpeg, guessed
/// form.append(thumbnail, name: "thumb", filename: "thumb.png")
/// var body: RequestBody? { .multipart(form) }
/// ```
///
/// Bodies up to ``RequestBody/multipart(_:streamingAbove:)``'s threshold are built in memory;
/// larger ones are written part by part to a private temporary file, which the transport streams
/// and the client deletes afterwards, so a 1 GiB upload takes a few megabytes of memory.
public struct MultipartForm: Sendable {
    /// One part of the form.
    public struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        /// The field name.
        public let name: String
        /// The file name, for file parts.
        public let filename: String?
        /// The part's content type, when it has one.
        public let contentType: String?
        /// Further headers of the part.
        public let headers: HTTPHeaders
        let content: Content
    }

    /// The boundary between parts: random, so it cannot occur in the content by chance.
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [Part] = []

    /// Creates an empty form.
    public init(boundary: String = "courier-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())
    {
        self.boundary = boundary
    }

    /// The `Content-Type` of the form, with its boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Appends a text field.
    public mutating func append(_ value: String, name: String, headers: HTTPHeaders = [:]) {
        parts.append(
            Part(name: name, filename: nil, contentType: nil, headers: headers, content: .data(Data(value.utf8))))
    }

    /// Appends bytes; with a file name they form a file part (content type guessed from the name when
    /// not given).
    public mutating func append(
        _ data: Data,
        name: String,
        filename: String? = nil,
        contentType: String? = nil,
        headers: HTTPHeaders = [:]
    ) {
        let type = contentType ?? filename.map(MediaType.guess(forFileName:))
        parts.append(Part(name: name, filename: filename, contentType: type, headers: headers, content: .data(data)))
    }

    /// Appends a file from disk, read only when the body is built; the file name defaults to the
    /// URL's last component and the content type is guessed from it.
    public mutating func append(
        fileAt url: URL,
        name: String,
        filename: String? = nil,
        contentType: String? = nil,
        headers: HTTPHeaders = [:]
    ) {
        let filename = filename ?? url.lastPathComponent
        let type = contentType ?? MediaType.guess(forFileName: filename)
        parts.append(Part(name: name, filename: filename, contentType: type, headers: headers, content: .file(url)))
    }

    /// The total length of the body in bytes.
    func length() throws -> Int64 {
        var total = Int64(closing.count)
        for part in parts {
            total += Int64(try head(of: part).count + 2)
            switch part.content {
            case .data(let data): total += Int64(data.count)
            case .file(let url): total += try Self.size(of: url)
            }
        }
        return total
    }

    /// The whole body in memory.
    func encodedData() throws -> Data {
        var data = Data()
        for part in parts {
            data += try head(of: part)
            switch part.content {
            case .data(let bytes): data += bytes
            case .file(let url): data += try Data(contentsOf: url)
            }
            data += Data("\r\n".utf8)
        }
        return data + closing
    }

    /// The whole body written to a new temporary file readable by the owner only; the caller
    /// removes it. Files are copied in 1 MiB chunks, so memory stays flat.
    func encodedFile() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-multipart-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        do {
            let output = try FileHandle(forWritingTo: url)
            defer { try? output.close() }
            for part in parts {
                try output.write(contentsOf: try head(of: part))
                switch part.content {
                case .data(let bytes):
                    try output.write(contentsOf: bytes)
                case .file(let source):
                    let input = try FileHandle(forReadingFrom: source)
                    defer { try? input.close() }
                    while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                        try output.write(contentsOf: chunk)
                    }
                }
                try output.write(contentsOf: Data("\r\n".utf8))
            }
            try output.write(contentsOf: closing)
            return url
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }

    private var closing: Data { Data("--\(boundary)--\r\n".utf8) }

    /// The boundary line and headers of a part, up to the blank line.
    private func head(of part: Part) throws -> Data {
        var disposition = "form-data; name=\"\(Self.quoted(part.name))\""
        if let filename = part.filename {
            disposition += "; filename=\"\(Self.quoted(filename))\""
        }
        var headers: HTTPHeaders = [.contentDisposition: disposition]
        if let contentType = part.contentType { headers[.contentType] = contentType }
        for field in part.headers where !headers.contains(field.name) {
            headers.add(field.name, field.value)
        }
        if let (field, reason) = headers.firstInvalidField() {
            throw EncodingError.invalidValue(
                field.value, .init(codingPath: [], debugDescription: "the part header \(field.name) \(reason)")
            )
        }
        var text = "--\(boundary)\r\n"
        for field in headers { text += "\(field.name.rawName): \(field.value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// A name or file name inside quotes, escaped as browsers do (RFC 7578 §4.2): `"`, CR and LF
    /// percent-encoded, and `\` too (a parser that reads backslash escapes would otherwise take
    /// `\"` as a quote inside the string and read what follows as new parameters); everything else
    /// (UTF-8 included) as it is.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "%5C").replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func size(of url: URL) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}
