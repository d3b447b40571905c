import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request body as libcurl reads it: from memory or straight from a file, a buffer at a time,
/// rewindable, never more than its announced length.
///
/// A file is opened and checked on the caller's task, before the transfer reaches a loop thread
/// (which must never block): opened without waiting (a named pipe with no writer would block
/// `open` for ever) and without following a symbolic link as its last component, and accepted
/// only when it is a regular file. Its length is the size at that moment, which the request
/// announces as `Content-Length`: reading stops there, and a file that shrank or grew by the end
/// fails the transfer instead of sending a body other than the one announced (bytes past the
/// announced length would reach the server as the start of another request).
///
/// Read on the loop thread only once made.
final class CurlUpload {
    private enum Source {
        case data(Data)
        case file(Int32, path: String)
    }
    private let source: Source
    /// The body's length in bytes: what the request announces.
    let length: Int64
    /// How far the body has been read.
    private(set) var offset: Int64 = 0

    /// Opens the body; an empty body when there is none.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/invalidRequest`` when the file cannot be
    ///   opened, is a symbolic link, or is not a regular file (a pipe, a device, a folder).
    init(_ body: HTTPBody?, request: HTTPRequest) throws {
        switch body {
        case nil:
            source = .data(Data())
            length = 0
        case .data(let data):
            source = .data(data)
            length = Int64(data.count)
        case .file(let url):
            let path = url.path
            let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                let reason =
                    errno == ELOOP
                    ? "it is a symbolic link (pass the file it points to)" : String(cString: strerror(errno))
                throw Self.refusal(path, reason, request)
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw Self.refusal(path, reason, request)
            }
            guard info.st_mode & S_IFMT == S_IFREG else {
                close(descriptor)
                throw Self.refusal(path, "it is not a regular file (a pipe, a socket, a device or a folder)", request)
            }
            source = .file(descriptor, path: path)
            length = Int64(info.st_size)
        }
    }

    deinit {
        if case .file(let descriptor, _) = source { close(descriptor) }
    }

    /// Copies the next bytes into `buffer`, never past ``length``; 0 at the end.
    ///
    /// - Throws: ``APIError`` when the file cannot be read, or changed size since it was opened.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let wanted = Int(min(Int64(buffer.count), length - offset))
        switch source {
        case .data(let data):
            guard wanted > 0 else { return 0 }
            let start = data.startIndex + Int(offset)
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + wanted))
            offset += Int64(wanted)
            return wanted
        case .file(let descriptor, let path):
            guard wanted > 0, let base = buffer.baseAddress else {
                try checkSize(descriptor, path: path)
                return 0
            }
            let count = pread(descriptor, base, wanted, off_t(offset))
            guard count >= 0 else {
                throw APIError(
                    .transport(.other),
                    message: "reading the body file \(path) failed: \(String(cString: strerror(errno)))")
            }
            guard count > 0 else { throw changedSize(path, now: offset) }
            offset += Int64(count)
            // libcurl asks no more once the announced length is out: look at the size before the
            // last bytes go.
            if offset == length { try checkSize(descriptor, path: path) }
            return count
        }
    }

    /// Moves to `position`, from the start.
    func seek(to position: Int64) throws {
        guard position >= 0, position <= length else {
            throw APIError(.transport(.other), message: "cannot rewind the body to byte \(position)")
        }
        offset = position
    }

    /// At the end of the body: the file must still be the size announced.
    private func checkSize(_ descriptor: Int32, path: String) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        if Int64(info.st_size) != length { throw changedSize(path, now: Int64(info.st_size)) }
    }

    private func changedSize(_ path: String, now: Int64) -> APIError {
        APIError(
            .invalidRequest,
            message: "the body file \(path) changed size while it was sent (\(length) bytes announced, now \(now)); "
                + "the upload stopped at the announced length")
    }

    private static func refusal(_ path: String, _ reason: String, _ request: HTTPRequest) -> APIError {
        APIError(.invalidRequest, message: "the body file \(path) cannot be sent: \(reason)", request: request)
    }
}
