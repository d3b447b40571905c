import Foundation

/// A ``Route`` that names its response type and how to decode it, so `send` returns it typed.
///
/// ```swift
/// struct SearchSongs: Endpoint {
///     typealias Response = SearchPage
///     typealias ErrorBody = ITunesError      // optional: the server's error body, typed
///     let term: String
///     var path: Path { "search" }
///     var query: Query { ["term": term, "media": "music"] }
/// }
///
/// let page = try await client.send(SearchSongs(term: "jack johnson"))
/// ```
///
/// Decoding defaults: a `Decodable` response is decoded as JSON with the client's `JSONDecoder`;
/// a `Data` response is the body as it came (never JSON-decoded); a `String` response is the body
/// decoded with the charset of its `Content-Type` (UTF-8 by default); ``EmptyResponse`` ignores the
/// body (for 204, 205 and `HEAD`). Any other response type implements ``decode(_:using:)``.
public protocol Endpoint<Response>: Route {
    /// What a successful call returns.
    associatedtype Response: Sendable

    /// Turns a successful response into the value. Throw to fail the call with a decoding error.
    func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> Response
}

extension Endpoint where Response: Decodable {
    /// Decodes the body by the defaults described on ``Endpoint``.
    public func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> Response {
        try ResponseDecoding.decode(Response.self, from: response, using: decoder)
    }
}
