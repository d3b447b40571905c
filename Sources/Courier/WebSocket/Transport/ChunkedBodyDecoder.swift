/// Decodes a chunked body (RFC 9112 §7.1) as its bytes arrive: the body of a refused WebSocket
/// handshake, on either transport.
///
/// Every byte is looked at once, whatever the pieces it arrives in (a million one-byte chunks cost a
/// million steps), and every part is bounded: a chunk-size line (the size and its extensions) and a
/// trailer line at ``maximumLine`` bytes, the decoded body at `limit`, the trailer section at
/// ``maximumTrailer``. A line may end with CRLF or a bare LF.
struct ChunkedBodyDecoder {
    enum Failure: Error, Equatable {
        /// Not a chunked body: the reason.
        case malformed(String)
        /// The decoded body passed the limit.
        case tooLarge
    }

    /// The longest chunk-size or trailer line, its CRLF not counted.
    static let maximumLine = 4096
    /// The most bytes of trailer fields.
    static let maximumTrailer = 16 << 10

    /// A line being read: its bytes so far (a CR included) and whether the last was a CR.
    private struct Line: Equatable {
        var length = 0
        var lastWasCR = false
        /// Its length without the CR of a CRLF.
        var content: Int { lastWasCR ? length - 1 : length }

        /// Takes one byte that is not the LF; `false` once the line is over ``maximumLine``
        /// (room left for the CR of a CRLF).
        mutating func take(_ byte: UInt8) -> Bool {
            length += 1
            lastWasCR = byte == UInt8(ascii: "\r")
            return length <= maximumLine + 1
        }
    }

    /// A chunk-size line's reading: its value so far, whether a digit came, whether the digits
    /// ended (whitespace, a CR or an extension followed), whether an extension started.
    private struct Size: Equatable {
        var value = 0
        var hasDigit = false
        var digitsEnded = false
        var inExtension = false
    }

    private enum State: Equatable {
        case size(Size, Line)
        /// In a chunk's data, with this many bytes to come.
        case data(remaining: Int)
        /// After a chunk's data: its line end (`sawCR`: the CR came).
        case dataEnd(sawCR: Bool)
        /// In the trailer section: the current line, and the section's bytes so far.
        case trailer(Line, total: Int)
        case complete
    }

    /// The body decoded so far.
    private(set) var body: [UInt8] = []
    /// The largest body accepted.
    let limit: Int
    private var state = State.size(Size(), Line())

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether the last chunk and the trailer section arrived.
    var isComplete: Bool { state == .complete }

    /// Decodes `bytes`; bytes after the body's end are ignored.
    mutating func feed(_ bytes: ArraySlice<UInt8>) throws(Failure) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .complete:
                return
            case .data(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                body.append(contentsOf: bytes[index..<(index + count)])
                index += count
                state = remaining == count ? .dataEnd(sawCR: false) : .data(remaining: remaining - count)
            case .dataEnd(let sawCR):
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\r"), !sawCR {
                    state = .dataEnd(sawCR: true)
                } else if byte == UInt8(ascii: "\n") {
                    state = .size(Size(), Line())
                } else {
                    throw .malformed("a chunk of the response body does not end with CRLF")
                }
            case .size(var size, var line):
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\n") {
                    guard line.content <= Self.maximumLine else { throw Self.longLine }
                    try endSizeLine(size)
                    continue
                }
                guard line.take(byte) else { throw Self.longLine }
                if size.inExtension {
                    // An extension's name and value: nothing Courier reads.
                } else if byte == UInt8(ascii: ";") {
                    size.inExtension = true
                } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                    size.digitsEnded = size.hasDigit
                } else if let digit = Self.hexValue(byte), !size.digitsEnded {
                    // Past the limit already: no need to read more digits (nor to overflow).
                    guard size.value <= limit else { throw .tooLarge }
                    size.value = size.value * 16 + digit
                    size.hasDigit = true
                } else {
                    throw .malformed("a chunk size of the response body is not hexadecimal")
                }
                state = .size(size, line)
            case .trailer(var line, let total):
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\n") {
                    state = line.content == 0 ? .complete : .trailer(Line(), total: total)
                    continue
                }
                guard line.take(byte), total < Self.maximumTrailer else {
                    throw .malformed("the response body's trailer section is too large")
                }
                state = .trailer(line, total: total + 1)
            }
        }
    }

    private static let longLine = Failure.malformed("a chunk-size line is over \(maximumLine) bytes")

    private mutating func endSizeLine(_ size: Size) throws(Failure) {
        guard size.hasDigit else { throw .malformed("a chunk size of the response body is not hexadecimal") }
        if size.value == 0 {
            state = .trailer(Line(), total: 0)
            return
        }
        guard body.count + size.value <= limit else { throw .tooLarge }
        state = .data(remaining: size.value)
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
