import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A jar's file: JSON, written whole to a new owner-only (0600) temporary file and renamed into
/// place. It is opened with `O_NOFOLLOW` and judged by the opened descriptor (`fstat`), so a link
/// swapped in is never followed: it must be a regular file of the current user with no other hard
/// link. A file that others
/// may read or write (group or other permission bits) is not trusted: when it reads as a jar its
/// cookies are dropped and it is rewritten owner-only and empty; when it does not, it is refused
/// and left as it is (it may be some other file the jar was pointed at by mistake).
enum CookieFile {
    /// The largest file read (3,000 cookies of 4 KiB are 12 MiB of values).
    static let maximumSize = 64 * 1024 * 1024

    struct Contents {
        var cookies: [Cookie]
        /// The file was open to others: its cookies were dropped and it should be rewritten.
        var wasOpenToOthers: Bool
    }

    static func load(_ file: URL) throws -> Contents {
        let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return Contents(cookies: [], wasOpenToOthers: false) }
            if code == ELOOP { throw refusal(file, "is a symbolic link") }
            throw refusal(file, "cannot be opened: \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw refusal(file, "cannot be examined") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw refusal(file, "is not a regular file") }
        guard info.st_uid == geteuid() else { throw refusal(file, "belongs to another user") }
        // A hard link: another name (perhaps another user's folder) shares the file.
        guard info.st_nlink <= 1 else { throw refusal(file, "has other hard links") }
        guard Int(info.st_size) <= maximumSize else { throw refusal(file, "is larger than \(maximumSize) bytes") }
        let isOpenToOthers = (info.st_mode & 0o077) != 0
        let data = try read(descriptor, file)
        let cookies: [Cookie]
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            cookies = try decoder.decode([Cookie].self, from: data)
        } catch {
            let reason =
                isOpenToOthers
                ? "is open to other users and is not a cookie jar; it was left as it is" : "cannot be read as a jar"
            throw APIError(
                .invalidRequest, message: "the cookie file \(file.path) \(reason): \(error)", underlyingError: error)
        }
        return Contents(cookies: isOpenToOthers ? [] : cookies, wasOpenToOthers: isOpenToOthers)
    }

    private static func read(_ descriptor: Int32, _ file: URL) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw refusal(file, "cannot be read: \(String(cString: strerror(errno)))")
            }
            data.append(contentsOf: buffer[..<count])
            if data.count > maximumSize { throw refusal(file, "is larger than \(maximumSize) bytes") }
        }
    }

    /// Refuses a link, another user's file, or something that is not a file, before a save.
    static func checkTarget(_ file: URL) throws {
        var info = stat()
        guard lstat(file.path, &info) == 0 else { return }  // not there yet
        if (info.st_mode & S_IFMT) == S_IFLNK { throw refusal(file, "is a symbolic link") }
        if (info.st_mode & S_IFMT) != S_IFREG { throw refusal(file, "is not a regular file") }
        if info.st_uid != geteuid() { throw refusal(file, "belongs to another user") }
    }

    static func save(_ cookies: [Cookie], to file: URL) throws {
        try checkTarget(file)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(cookies)
        let temporary = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        var isWritten = fchmod(descriptor, 0o600) == 0
        isWritten =
            isWritten
            && data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { return false }
                    offset += count
                }
                return true
            }
        isWritten = isWritten && fsync(descriptor) == 0
        close(descriptor)
        guard isWritten, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    private static func refusal(_ file: URL, _ reason: String) -> APIError {
        APIError(.invalidRequest, message: "the cookie file \(file.path) \(reason); refused")
    }
}

/// Writes one file's snapshots one at a time, on a serial queue per file: two saves never
/// interleave, and since each takes its snapshot when its turn comes, an older snapshot is never
/// written after a newer one. Changes are coalesced: while a write is waiting, further changes
/// add nothing to the queue (the waiting write will take them).
final class CookieFileWriter: Sendable {
    let file: URL
    private let queue: DispatchQueue
    /// Whether a write is queued and has not taken its snapshot yet.
    private let isPending = Locked(false)

    private static let queues = Locked([String: DispatchQueue]())

    init(file: URL) {
        self.file = file
        let key = file.standardizedFileURL.path
        queue = Self.queues.withLock { queues in
            if let queue = queues[key] { return queue }
            let queue = DispatchQueue(label: "Courier.CookieJar.file")
            queues[key] = queue
            return queue
        }
    }

    /// Queues a write of what `snapshot` returns when its turn comes, unless one is waiting.
    func schedule(_ snapshot: @escaping @Sendable () -> [Cookie]) {
        let isNew = isPending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard isNew else { return }
        queue.async { [self] in
            isPending.withLock { $0 = false }
            try? CookieFile.save(snapshot(), to: file)
        }
    }

    /// Returns once every write queued for this file so far is on disk.
    func waitForQueuedWrites() {
        queue.sync {}
    }

    /// Writes what `snapshot` returns in its turn, and returns once it is on disk.
    func save(_ snapshot: @Sendable () -> [Cookie]) throws {
        try queue.sync { try CookieFile.save(snapshot(), to: file) }
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
