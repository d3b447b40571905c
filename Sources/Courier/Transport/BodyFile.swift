import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request body file, opened once for one exchange and every redirect hop that sends it again (a
/// 307 or 308): its length and its bytes come from the same open descriptor, and no read goes past
/// that length.
///
/// What can happen to a file while it is sent, and what the reader does:
/// - it grows (someone appends): the bytes past the length are never read, and the size is checked
///   again before the last piece is handed out; a changed size fails the read then, so the server
///   never receives a whole request and never reads the appended bytes as a request of their own;
/// - it shrinks (truncated): the read that finds the end early fails, at once;
/// - its path is renamed, replaced or re-pointed after the open, before a redirect hop included:
///   nothing changes, the descriptor still reads the file that was opened and measured.
///
/// The path's last component must name a regular file itself: a symbolic link there is refused,
/// and so are a FIFO, a device such as `/dev/zero` and a directory, which have no length to
/// announce. Links in the folders above it are followed, as every program follows them (macOS's
/// `/tmp` is one): a body file belongs in a folder only its owner can write. A FIFO is opened
/// without blocking, so refusing it never waits for a writer; opening happens on the caller's task,
/// never on a transport's thread.
///
/// Rewrites that keep the size are not detected.
///
/// `Sendable`: its state is immutable; reads go through `pread` at explicit offsets, so readers
/// share no file position.
final class BodyFile: Sendable {
    /// Why a read failed.
    enum Problem: Error, Sendable, Equatable {
        /// The file is now `size` bytes long, not the length announced.
        case changedSize(Int64)
        /// Reading failed with this `errno`.
        case unreadable(Int32)
    }

    /// The file as the caller named it.
    let url: URL
    /// Its length when it was opened: the body's announced `Content-Length`.
    let length: Int64
    private let descriptor: Int32

    /// Opens the file for reading and measures it.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/invalidRequest`` (nothing was sent) when the
    ///   file cannot be opened, is a symbolic link, or is not a regular file.
    init(opening url: URL, for request: HTTPRequest) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let reason =
                errno == ELOOP
                ? "it is a symbolic link (send the file it points to: URL.resolvingSymlinksInPath())"
                : String(cString: strerror(errno))
            throw APIError(
                .invalidRequest, message: "the body file \(url.path) cannot be opened: \(reason)", request: request)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw APIError(
                .invalidRequest,
                message: "the body file \(url.path) is not a regular file (a pipe, a socket, a device or a folder)",
                request: request)
        }
        self.url = url
        self.descriptor = descriptor
        self.length = Int64(info.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// Copies the body's bytes from `offset` into `buffer`, never past ``length``; 0 at the end.
    ///
    /// - Throws: ``Problem/changedSize(_:)`` when the file ends before ``length``, or when it is no
    ///   longer ``length`` bytes long as the last piece is about to be handed out (the piece is not
    ///   handed out then); ``Problem/unreadable(_:)`` when reading fails.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(Problem) -> Int {
        let wanted = Int(min(Int64(buffer.count), length - offset))
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        var count: Int
        repeat {
            count = pread(descriptor, base, wanted, off_t(offset))
        } while count < 0 && errno == EINTR
        guard count >= 0 else { throw .unreadable(errno) }
        guard count > 0 else { throw .changedSize(currentSize() ?? offset) }
        if offset + Int64(count) == length, let size = currentSize(), size != length {
            throw .changedSize(size)
        }
        return count
    }

    /// The file's size now, through the open descriptor.
    private func currentSize() -> Int64? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// The error a call fails with when reading the body failed.
    func error(for problem: Problem, request: HTTPRequest) -> APIError {
        switch problem {
        case .changedSize(let size):
            APIError(
                .transport(.bodyFileChanged),
                message: "the body file \(url.path) changed size during the upload (\(length) bytes announced, "
                    + "\(size) now); its last bytes were not sent",
                request: request)
        case .unreadable(let code):
            APIError(
                .transport(.other),
                message: "reading the body file \(url.path) failed: \(String(cString: strerror(code)))",
                request: request)
        }
    }
}
