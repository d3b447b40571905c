import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A jar's file: JSON, written whole to a temporary file with owner-only permissions and renamed
/// into place; a link or another user's file is never read or written.
enum CookieFile {
    static func checkOwnership(_ file: URL) throws {
        var info = stat()
        guard lstat(file.path, &info) == 0 else { return }  // not there yet
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw APIError(.invalidRequest, message: "the cookie file \(file.path) is a symbolic link; refused")
        }
        if info.st_uid != geteuid() {
            throw APIError(.invalidRequest, message: "the cookie file \(file.path) belongs to another user; refused")
        }
    }

    static func load(_ file: URL) throws -> [Cookie] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode([Cookie].self, from: Data(contentsOf: file))
        } catch {
            throw APIError(
                .invalidRequest, message: "the cookie file \(file.path) cannot be read: \(error)",
                underlyingError: error)
        }
    }

    static func save(_ cookies: [Cookie], to file: URL) throws {
        try checkOwnership(file)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(cookies)
        let temporary = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == data.count, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }
}
