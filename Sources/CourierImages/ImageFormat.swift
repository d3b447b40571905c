import Foundation

/// An image file format, recognised from the first bytes of the file, never from `Content-Type`.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// PNG.
    case png
    /// JPEG (JFIF or Exif).
    case jpeg
    /// GIF (87a or 89a).
    case gif
    /// WebP (lossy, lossless or extended).
    case webp
    /// Windows bitmap.
    case bmp

    /// The format whose signature `data` starts with, or `nil` for none of them.
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if bytes.count == 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46],
            bytes[8..<12] == [0x57, 0x45, 0x42, 0x50]
        {
            self = .webp
        } else if bytes.starts(with: [0x42, 0x4D]), bytes.count >= 6 {
            self = .bmp
        } else {
            return nil
        }
    }

    /// The usual file extension: `png`, `jpg`, `gif`, `webp`, `bmp`.
    public var fileExtension: String {
        self == .jpeg ? "jpg" : rawValue
    }

    /// The MIME type: `image/png`, `image/jpeg`, …
    public var mimeType: String {
        "image/\(rawValue)"
    }
}
