/// Splits a `Set-Cookie` field that a transport joined from several with `", "` (URLSession's
/// `allHeaderFields` does) back into one value a cookie. Only that transport calls it: a field a
/// transport delivered on its own (CurlTransport, StubTransport) is one cookie, commas and all.
///
/// A comma splits only where it is unambiguous: followed by `name=` (a token without blanks)
/// before the next `;` or `,`, outside a quoted value, and not right after the weekday of an
/// `Expires` date (`Expires=Wed, 09 Jun 2021 …`). A quote opens a value only at its start and
/// ends at the closing quote or at a `;`.
///
/// What stays ambiguous: one field whose unquoted value holds `, name=` (`a=x, b=y`) reads the
/// same as two joined fields, and is split. A server that puts commas in values should quote them
/// (`a="x, b=y"`), or the client should use CurlTransport, which hands over each field as sent.
enum SetCookieSplitter {
    static func split(_ joined: String) -> [String] {
        let bytes = Array(joined.utf8)
        guard bytes.contains(UInt8(ascii: ",")) else { return [joined] }
        var cookies: [String] = []
        var start = 0
        var state = State()
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if state.step(byte), byte == UInt8(ascii: ","), startsCookie(bytes, after: index) {
                cookies.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
                state = State()
            }
            index += 1
        }
        cookies.append(String(decoding: bytes[start...], as: UTF8.self))
        return cookies.map { SetCookie.trim($0[...]) }.filter { !$0.isEmpty }
    }

    /// Where the scan is within one cookie's text.
    private struct State {
        /// Inside a quoted value.
        var inQuote = false
        /// At the start of a value: only blanks since its `=`.
        var atValueStart = false
        /// The current part's name (before its `=`), lowercased, and whether its `=` was seen.
        var key: [UInt8] = []
        var inValue = false
        /// Whether the current value holds a digit yet (an `Expires` weekday does not).
        var valueHasDigit = false

        /// Takes one byte; true when a comma here may split (outside quotes and dates).
        mutating func step(_ byte: UInt8) -> Bool {
            if inQuote {
                if byte == UInt8(ascii: "\"") { inQuote = false }
                if byte == UInt8(ascii: ";") {
                    inQuote = false
                    startPart()
                }
                return false
            }
            switch byte {
            case UInt8(ascii: ";"):
                startPart()
                return false
            case UInt8(ascii: "=") where !inValue:
                inValue = true
                atValueStart = true
                return false
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                return true
            case UInt8(ascii: "\"") where atValueStart:
                inQuote = true
                atValueStart = false
                return false
            case UInt8(ascii: ","):
                // `Expires=Wed,`: the comma after a weekday is the date's own.
                return !(inValue && key == Array("expires".utf8) && !valueHasDigit)
            default:
                atValueStart = false
                if inValue {
                    if (0x30...0x39).contains(byte) { valueHasDigit = true }
                } else if byte != UInt8(ascii: " ") {
                    key.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
                }
                return true
            }
        }

        private mutating func startPart() {
            key = []
            inValue = false
            atValueStart = false
            valueHasDigit = false
        }
    }

    /// Whether the text after a comma starts a cookie: `name=` before any `;` or `,`, the name a
    /// token without blanks inside.
    private static func startsCookie(_ bytes: [UInt8], after comma: Int) -> Bool {
        var index = comma + 1
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
        let nameStart = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "="):
                return index > nameStart
            case UInt8(ascii: ";"), UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\""):
                return false
            default:
                index += 1
            }
        }
        return false
    }
}
