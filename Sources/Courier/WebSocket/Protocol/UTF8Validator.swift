/// Checks UTF-8 as it arrives, piece by piece, and says no at the first byte that makes the text
/// invalid whatever follows (RFC 6455 §8.1: a text message that is not UTF-8 fails the connection;
/// failing fast means a peer cannot make Courier buffer a message it will refuse anyway).
///
/// Well-formed UTF-8 is Unicode's Table 3-7 (RFC 3629 §4): a lead byte C2–DF, E0–EF or F0–F4, then
/// one, two or three continuation bytes 80–BF, with narrower second bytes after E0 (A0–BF: no
/// overlong three-byte form), ED (80–9F: no surrogates), F0 (90–BF: no overlong four-byte form) and
/// F4 (80–8F: nothing above U+10FFFF). C0, C1 and F5–FF never appear. A code point may be split
/// between pieces (between fragments of a message); only the end of the message (``isComplete``)
/// says whether the last one was finished.
package struct UTF8Validator: Sendable {
    /// Continuation bytes still due for the current code point.
    private var pending = 0
    /// The range the next continuation byte must fall in (narrower for the second byte after E0,
    /// ED, F0 and F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    /// Whether every byte so far could start valid UTF-8.
    package private(set) var isValid = true

    package init() {}

    /// Whether the bytes so far are valid UTF-8 that ends on a code point boundary: what a whole
    /// text message must be.
    package var isComplete: Bool { isValid && pending == 0 }

    /// Checks the next bytes; `false` once the text cannot be valid (and from then on).
    @discardableResult
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard isValid else { return false }
        var index = 0
        let count = bytes.count
        while index < count {
            if pending == 0 {
                // Eight ASCII bytes at a time while no code point is open.
                while index + 8 <= count,
                    bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { break }
            }
            let byte = bytes[index]
            index += 1
            if pending > 0 {
                guard byte >= lower && byte <= upper else { return fail() }
                lower = 0x80
                upper = 0xBF
                pending -= 1
                continue
            }
            switch byte {
            case 0x00...0x7F: continue
            case 0xC2...0xDF: pending = 1
            case 0xE0: (pending, lower) = (2, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: pending = 2
            case 0xED: (pending, upper) = (2, 0x9F)
            case 0xF0: (pending, lower) = (3, 0x90)
            case 0xF1...0xF3: pending = 3
            case 0xF4: (pending, upper) = (3, 0x8F)
            default: return fail()
            }
        }
        return true
    }

    /// Checks the next bytes of an array.
    @discardableResult
    package mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }

    /// Starts over, for the next message.
    package mutating func reset() {
        self = UTF8Validator()
    }

    private mutating func fail() -> Bool {
        isValid = false
        return false
    }
}
