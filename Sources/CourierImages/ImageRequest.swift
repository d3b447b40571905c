import Courier
import Foundation

/// A `GET` of an image at an absolute URL, decoded as ``ImageData``.
///
/// ```swift
/// let poster = try await client.send(ImageRequest(url: posterURL))
/// ```
///
/// Image hosts are usually not the API's host: the request needs no authentication by default, so
/// the API's credentials never travel to the image host.
public struct ImageRequest: Endpoint {
    /// The image.
    public typealias Response = ImageData

    /// The image's URL.
    public var url: URL
    /// Whether the auth middleware should authenticate it; `false` by default.
    public var requiresAuthentication: Bool

    /// Creates the request.
    public init(url: URL, requiresAuthentication: Bool = false) {
        self.url = url
        self.requiresAuthentication = requiresAuthentication
    }

    /// The image's URL, as the base URL.
    public var baseURL: URL? { url }
    /// Empty: the URL is complete.
    public var path: Path { "" }
    /// Images of any type; the bytes decide the format.
    public var headers: HTTPHeaders { [.accept: "image/*"] }
}

extension Endpoint where Response == ImageData {
    /// Reads the body as an image: its format from the bytes, its size from the header.
    public func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> ImageData {
        try ImageData(data: response.body)
    }
}
