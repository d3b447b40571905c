import Foundation

/// A request body as libcurl reads it: from memory, from a ``BodyFile`` or from a
/// ``BodyStreamReader``, a buffer at a time, never past its announced length; rewindable, except a
/// stream once its first byte went out.
///
/// Made on the caller's task, where a body file is opened and checked (a loop thread must never
/// block, and opening a named pipe would); read on the loop thread only once made.
final class CurlUpload {
    private enum Source {
        case data(Data)
        case file(BodyFile)
        case stream(BodyStreamReader)
    }
    private let source: Source
    private let request: HTTPRequest
    /// The body's length in bytes: what the request announces; `nil` for a stream of unknown length
    /// (sent chunked).
    let length: Int64?
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
        case .stream(let stream):
            let reader = try BodyStreamReader(stream, request: request)
            source = .stream(reader)
            length = reader.length
        }
    }

    /// The stream the body is read from, when it is one.
    var stream: BodyStreamReader? {
        if case .stream(let reader) = source { return reader }
        return nil
    }

    /// Copies the next bytes into `buffer`, never past ``length``; 0 at the end, `nil` when a
    /// stream has nothing yet (then `waker` is called once it has).
    ///
    /// - Throws: ``APIError`` when the file cannot be read, or changed size since it was opened
    ///   (``TransportFailure/bodyFileChanged``), when the stream failed or broke its length
    ///   (``TransportFailure/bodyLengthMismatch``).
    func read(
        into buffer: UnsafeMutableRawBufferPointer, waker: @autoclosure () -> @Sendable () -> Void
    ) throws -> Int? {
        switch source {
        case .data(let data):
            let count = Int(min(Int64(buffer.count), Int64(data.count) - offset))
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
        case .stream(let reader):
            switch try reader.read(into: buffer, waker: waker()) {
            case .bytes(let count):
                offset += Int64(count)
                return count
            case .end: return 0
            case .wait: return nil
            }
        }
    }

    /// Moves to `position`, from the start.
    func seek(to position: Int64) throws {
        if case .stream = source, position != offset {
            throw APIError(
                .transport(.other), message: "libcurl asked to send the body stream again, which cannot be done",
                request: request)
        }
        guard position >= 0, position <= length ?? offset else {
            throw APIError(.transport(.other), message: "cannot rewind the body to byte \(position)")
        }
        offset = position
    }
}
