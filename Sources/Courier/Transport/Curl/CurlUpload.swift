import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request body as libcurl reads it: from memory or straight from a file, a buffer at a time,
/// rewindable. Used on the loop thread only.
final class CurlUpload {
    private enum Source {
        case data(Data)
        case file(Int32)
    }
    private let source: Source
    /// The body's length in bytes.
    let length: Int64
    /// How far the body has been read.
    private(set) var offset: Int64 = 0

    /// Opens the body; an empty body when there is none.
    init(_ body: HTTPBody?, request: HTTPRequest) throws {
        switch body {
        case nil:
            source = .data(Data())
            length = 0
        case .data(let data):
            source = .data(data)
            length = Int64(data.count)
        case .file(let url):
            let descriptor = open(url.path, O_RDONLY)
            var info = stat()
            guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
                if descriptor >= 0 { close(descriptor) }
                throw APIError(
                    .invalidRequest,
                    message: "the body file \(url.path) cannot be read: \(String(cString: strerror(errno)))",
                    request: request)
            }
            source = .file(descriptor)
            length = Int64(info.st_size)
        }
    }

    deinit {
        if case .file(let descriptor) = source { close(descriptor) }
    }

    /// Copies the next bytes into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch source {
        case .data(let data):
            let count = min(buffer.count, data.count - Int(offset))
            guard count > 0 else { return 0 }
            let start = data.startIndex + Int(offset)
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + count))
            offset += Int64(count)
            return count
        case .file(let descriptor):
            guard let base = buffer.baseAddress else { return 0 }
            let count = pread(descriptor, base, buffer.count, off_t(offset))
            guard count >= 0 else {
                throw APIError(
                    .transport(.other), message: "reading the body file failed: \(String(cString: strerror(errno)))")
            }
            offset += Int64(count)
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
}
