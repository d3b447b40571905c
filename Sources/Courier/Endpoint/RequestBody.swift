import Foundation

/// The body of a route: JSON from an `Encodable`, a URL-encoded form, text, or raw bytes with a
/// content type. The client encodes it when it builds the request and sets `Content-Type` (unless
/// the route set one itself).
///
/// ```swift
/// var body: RequestBody? { .json(NewComment(text: "Hi")) }
/// var body: RequestBody? { .form([URLQueryItem(name: "grant_type", value: "refresh_token")]) }
/// ```
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case json(any Encodable & Sendable, encoder: JSONEncoder?)
        case form([URLQueryItem])
        case data(Data, contentType: String)
    }

    let content: Content

    /// A JSON body, encoded with the client's `JSONEncoder` (or the one given here).
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(content: .json(value, encoder: encoder))
    }

    /// An `application/x-www-form-urlencoded` body: every name and value percent-encoded, spaces as `+`.
    public static func form(_ items: [URLQueryItem]) -> RequestBody {
        RequestBody(content: .form(items))
    }

    /// Raw bytes with their content type.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .data(data, contentType: contentType))
    }

    /// UTF-8 text.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(content: .data(Data(text.utf8), contentType: contentType))
    }

    /// The bytes and content type, using `encoder` for JSON unless the body brought its own.
    func encoded(with defaultEncoder: JSONEncoder) throws -> (data: Data, contentType: String) {
        switch content {
        case .json(let value, let encoder):
            return (try (encoder ?? defaultEncoder).encode(value), "application/json")
        case .form(let items):
            let text = PercentEncoding.encodeQuery(items.map { ($0.name, $0.value) }, spaceAsPlus: true)
            return (Data(text.utf8), "application/x-www-form-urlencoded")
        case .data(let data, let contentType):
            return (data, contentType)
        }
    }
}
