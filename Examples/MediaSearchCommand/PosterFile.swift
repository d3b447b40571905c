import Courier
import Foundation

/// Saving a downloaded poster, never over an existing file.
enum PosterFile {
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
