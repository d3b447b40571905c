import Foundation

/// Cuts a byte stream into lines ending in LF or CRLF, whatever the pieces' boundaries (a CRLF or
/// a multi-byte UTF-8 character split between two pieces included); each line is decoded as UTF-8
/// once whole, invalid bytes replaced by U+FFFD.
struct LineSplitter {
    /// The most bytes one line may hold; a longer one fails the stream (a server that never sends
    /// a line end must not exhaust memory).
    let maximumLength: Int
    private var pending: [UInt8] = []

    init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Appends the whole lines of `piece` to `lines`, keeping the unfinished rest for the next piece.
    mutating func split(_ piece: Data, into lines: inout [String]) throws {
        piece.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard let base = bytes.baseAddress else { return }
            var start = 0
            while start < bytes.count {
                guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else { break }
                let end = base.distance(to: UnsafeRawPointer(found))
                let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                if pending.isEmpty {
                    lines.append(Self.decode(segment))
                } else {
                    pending.append(contentsOf: segment)
                    lines.append(pending.withUnsafeBytes { Self.decode($0) })
                    pending.removeAll(keepingCapacity: true)
                }
                start = end + 1
            }
            if start < bytes.count {
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
            }
        }
        if pending.count > maximumLength { throw Self.tooLong(maximumLength) }
    }

    /// The last line, when the stream ended without a line end after it.
    mutating func finish() -> String? {
        defer { pending.removeAll() }
        return pending.isEmpty ? nil : pending.withUnsafeBytes { Self.decode($0) }
    }

    /// The line without its CR, decoded.
    private static func decode(_ line: UnsafeRawBufferPointer) -> String {
        let length = line.last == UInt8(ascii: "\r") ? line.count - 1 : line.count
        return String(decoding: UnsafeRawBufferPointer(rebasing: line[..<length]), as: UTF8.self)
    }

    static func tooLong(_ limit: Int) -> APIError {
        APIError(.transport(.responseTooLarge), message: "the stream sent a line longer than \(limit) bytes")
    }
}
