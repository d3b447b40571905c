import Courier
import Foundation

/// Saving a downloaded poster: its type from its first bytes, never over an existing file.
enum PosterFile {
    static func fileExtension(of image: Data) -> String {
        let bytes = [UInt8](image.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if bytes.count >= 12, bytes[0...3] == [0x52, 0x49, 0x46, 0x46], bytes[8...11] == [0x57, 0x45, 0x42, 0x50] {
            return "webp"
        }
        return "img"
    }

    static func write(_ image: Data, to destination: URL) throws {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw UsageError(
                message: "\(destination.path) exists already; pass --output with another name", topic: "poster")
        }
        do {
            try image.write(to: destination, options: .withoutOverwriting)
        } catch {
            throw APIError(
                .invalidRequest, message: "could not write \(destination.path): \(error.localizedDescription)")
        }
    }
}
