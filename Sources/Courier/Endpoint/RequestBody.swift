import Foundation

/// The body of a route. The client encodes it when it builds the request, sets `Content-Type`
/// (unless the route set one) and `Content-Length`.
///
/// ```swift
/// var body: RequestBody? { .json(NewComment(text: "Hi")) }                       // application/json
/// var body: RequestBody? { .form(["grant_type": "refresh_token", "token": t]) }  // x-www-form-urlencoded
/// var body: RequestBody? { .form(.encoding(LoginForm(user: u, password: p))) }
/// var body: RequestBody? { .multipart(form) }                                    // multipart/form-data
/// var body: RequestBody? { .file(videoURL) }                                     // streamed from disk
/// var body: RequestBody? { .text("hello") }
/// var body: RequestBody? { .data(bytes, contentType: "application/octet-stream") }
/// var body: RequestBody? { .stream(HTTPBodyStream(chunks)) }                    // sent as produced, once
/// ```
public struct RequestBody: Sendable {
    /// How a form body writes spaces.
    public enum SpaceEncoding: Sendable, Hashable {
        /// `a+b`: what browsers send and every server reads.
        case plus
        /// `a%20b`.
        case percentEncoded
    }

    enum Content: Sendable {
        case json(any Encodable & Sendable, encoder: JSONEncoder?)
        case form(Query, spaces: SpaceEncoding)
        case data(Data, contentType: String)
        case file(URL, contentType: String?)
        case multipart(MultipartForm, threshold: Int)
        case stream(HTTPBodyStream, contentType: String)
    }

    /// A body ready to send.
    struct Encoded {
        let body: HTTPBody
        let contentType: String
        /// A file the client made for this request, to delete when the call ends.
        let temporaryFile: URL?
    }

    let content: Content

    /// A JSON body, encoded with the client's `JSONEncoder` (or the one given here).
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(content: .json(value, encoder: encoder))
    }

    /// An `application/x-www-form-urlencoded` body: names and values percent-encoded by RFC 3986,
    /// spaces as `+` unless told otherwise.
    public static func form(_ fields: Query, spaces: SpaceEncoding = .plus) -> RequestBody {
        RequestBody(content: .form(fields, spaces: spaces))
    }

    /// Raw bytes with their content type.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .data(data, contentType: contentType))
    }

    /// UTF-8 text.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(content: .data(Data(text.utf8), contentType: contentType))
    }

    /// A file on disk, streamed by the transport; the content type is guessed from the extension
    /// when not given.
    public static func file(_ url: URL, contentType: String? = nil) -> RequestBody {
        RequestBody(content: .file(url, contentType: contentType))
    }

    /// Chunks produced while the request is sent (see ``HTTPBodyStream``): `Content-Length` when the
    /// stream declares its length, chunked otherwise. It can be sent once: no retry, credential
    /// refresh or 307/308 redirect sends it again.
    public static func stream(
        _ stream: HTTPBodyStream, contentType: String = "application/octet-stream"
    ) -> RequestBody {
        RequestBody(content: .stream(stream, contentType: contentType))
    }

    /// A `multipart/form-data` body; one larger than `threshold` bytes (10 MiB by default) is written
    /// to a temporary file and streamed instead of being built in memory.
    public static func multipart(_ form: MultipartForm, streamingAbove threshold: Int = 10 << 20) -> RequestBody {
        RequestBody(content: .multipart(form, threshold: threshold))
    }

    /// The bytes (or file) and content type, using `defaultEncoder` for JSON unless the body brought its own.
    func encoded(with defaultEncoder: JSONEncoder) throws -> Encoded {
        switch content {
        case .json(let value, let encoder):
            return Encoded(
                body: .data(try (encoder ?? defaultEncoder).encode(value)), contentType: "application/json",
                temporaryFile: nil)
        case .form(let fields, let spaces):
            let text = PercentEncoding.encodeQuery(
                try fields.items().map { ($0.name, $0.value) }, spaceAsPlus: spaces == .plus)
            return Encoded(
                body: .data(Data(text.utf8)), contentType: "application/x-www-form-urlencoded", temporaryFile: nil)
        case .data(let data, let contentType):
            return Encoded(body: .data(data), contentType: contentType, temporaryFile: nil)
        case .file(let url, let contentType):
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
            }
            return Encoded(
                body: .file(url), contentType: contentType ?? MediaType.guess(forFileName: url.lastPathComponent),
                temporaryFile: nil)
        case .multipart(let form, let threshold):
            if try form.length() <= Int64(threshold) {
                return Encoded(body: .data(try form.encodedData()), contentType: form.contentType, temporaryFile: nil)
            }
            let file = try form.encodedFile()
            return Encoded(body: .file(file), contentType: form.contentType, temporaryFile: file)
        case .stream(let stream, let contentType):
            return Encoded(body: .stream(stream), contentType: contentType, temporaryFile: nil)
        }
    }
}
