import Foundation

/// A request body as libcurl reads it: from memory or from a ``BodyFile``, a buffer at a time,
/// rewindable, never past its announced length.
///
/// Made on the caller's task, where a body file is opened and checked (a loop thread must never
/// block, and opening a named pipe would); read on the loop thread only once made.
final class CurlUpload {
    private enum Source {
        case data(Data)
        case file(BodyFile)
    }
    private let source: Source
    private let request: HTTPRequest
    /// The body's length in bytes: what the request announces.
    let length: Int64
    /// How far the body has been read.
    private(set) var offset: Int64 = 0

    /// Opens the body (a file body unless `file` is the one opened for it already); an empty body
    /// when there is none.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/invalidRequest`` when the body file cannot be
    ///   sent (see ``BodyFile``).
    init(_ body: HTTPBody?, file opened: BodyFile? = nil, request: HTTPRequest) throws {
        self.request = request
        switch body {
        case nil:
            source = .data(Data())
            length = 0
        case .data(let data):
            source = .data(data)
            length = Int64(data.count)
        case .file(let url):
            let file = try opened ?? BodyFile(opening: url, for: request)
            source = .file(file)
            length = file.length
        }
    }

    /// Copies the next bytes into `buffer`, never past ``length``; 0 at the end.
    ///
    /// - Throws: ``APIError`` when the file cannot be read, or changed size since it was opened
    ///   (``TransportFailure/bodyFileChanged``).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch source {
        case .data(let data):
            let count = Int(min(Int64(buffer.count), length - offset))
            guard count > 0 else { return 0 }
            let start = data.startIndex + Int(offset)
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + count))
            offset += Int64(count)
            return count
        case .file(let file):
            do {
                let count = try file.read(at: offset, into: buffer)
                offset += Int64(count)
                return count
            } catch {
                throw file.error(for: error, request: request)
            }
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
