import Foundation

/// The body of an ``HTTPRequest``: bytes in memory, a file that the transport streams from disk, or
/// chunks produced while the request is sent.
///
/// A file body keeps memory flat whatever its size, and can be sent again (by a retry or a
/// redirect) because the file is read anew each time. A stream body keeps memory flat too, but can
/// be sent once (see ``HTTPBodyStream``).
public enum HTTPBody: Sendable, Hashable {
    /// Bytes in memory.
    case data(Data)
    /// The contents of a file on disk, read while sending.
    ///
    /// It must be a regular file, named by its own path (not a symbolic link, a named pipe or a
    /// device): anything else fails with ``APIError/Kind/invalidRequest`` before any I/O. Its size
    /// when the transport opens it is announced as `Content-Length`; a file that changes size while
    /// it is sent fails the call, and no byte past the announced length is ever sent.
    case file(URL)
    /// Chunks from an `AsyncSequence`, taken as the network takes them; sent once, never again.
    ///
    /// Supported by ``CurlTransport`` (streamed, chunked when the length is unknown);
    /// ``URLSessionTransport`` on Linux collects the stream in a temporary file first (see
    /// ``URLSessionTransport/Configuration/maximumSpooledStreamSize``).
    case stream(HTTPBodyStream)

    /// The body's length in bytes, when it can be known (a file that cannot be read has none, a
    /// stream its declared length).
    public var length: Int64? {
        switch self {
        case .data(let data):
            return Int64(data.count)
        case .file(let url):
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes?[.size] as? NSNumber)?.int64Value
        case .stream(let stream):
            return stream.length
        }
    }

    /// Whether the body has no bytes.
    public var isEmpty: Bool { length == 0 }
}
