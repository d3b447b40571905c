import Courier
import Foundation

/// An image as it came over the network: its bytes, its format and its size in pixels, read from
/// the file's header without a platform image library (so it works on Linux, where there is no
/// UIKit), and checked before anything is cached.
///
/// ```swift
/// let poster = try await client.send(ImageRequest(url: posterURL))
/// print(poster.format, poster.pixelWidth, poster.pixelHeight)   // jpeg 500 750
/// ```
public struct ImageData: Sendable, Hashable {
    /// The encoded bytes, as received.
    public let data: Data
    /// The format, from the bytes' signature.
    public let format: ImageFormat
    /// The width in pixels.
    public let pixelWidth: Int
    /// The height in pixels.
    public let pixelHeight: Int

    /// Reads the format and size from `data`.
    ///
    /// - Throws: `APIError` of kind `decoding` when the bytes are not an image of a
    ///   known format, or its header is cut short or gives no size.
    public init(data: Data) throws {
        guard let format = ImageFormat(sniffing: data) else {
            let start = data.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
            throw APIError(
                .decoding,
                message: data.isEmpty
                    ? "the body is empty, not an image"
                    : "the body is not a PNG, JPEG, GIF, WebP or BMP image (it starts \(start))")
        }
        guard let size = ImageHeader.pixelSize(of: data, format: format), size.width > 0, size.height > 0 else {
            throw APIError(.decoding, message: "the \(format.rawValue) image's header is damaged or gives no size")
        }
        self.data = data
        self.format = format
        self.pixelWidth = size.width
        self.pixelHeight = size.height
    }
}
