import Foundation

/// One HTTP response as transports return it and middlewares see it: status, headers, the whole
/// body, and the URL it finally came from.
public struct HTTPResponse: Sendable, Hashable, CustomStringConvertible {
    /// The status.
    public var status: HTTPStatus
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body, decompressed; empty when there was none.
    public var body: Data
    /// The URL of the response, after any redirects; `nil` when the transport does not know it.
    public var url: URL?
    /// How many redirects the transport followed to get here.
    public var redirectCount: Int
    /// How many body bytes went to the caller as they arrived (a stream, a download's file), or
    /// `nil` when the body, if any, is ``body``. A streamed response's ``body`` is empty, or holds
    /// the error page that was not streamed.
    public var streamedBodyBytes: Int64?

    /// Creates a response.
    public init(
        status: HTTPStatus,
        headers: HTTPHeaders = [:],
        body: Data = Data(),
        url: URL? = nil,
        redirectCount: Int = 0
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
        self.redirectCount = redirectCount
    }

    /// The status and the body's size: `404 Not Found (120 bytes)`.
    public var description: String {
        "\(status) (\(streamedBodyBytes.map { "\($0) bytes streamed" } ?? "\(body.count) bytes"))"
    }
}
