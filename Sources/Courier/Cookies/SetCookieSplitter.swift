/// Splits a `Set-Cookie` field that a transport joined from several with `", "` (URLSession's
/// `allHeaderFields` does) back into one value a cookie. Only that transport calls it: a field a
/// transport delivered on its own (CurlTransport, StubTransport) is one cookie, commas and all.
///
/// A comma splits only where a field may end: followed by `name=` (a token without blanks) before
/// the next `;` or `,`, outside a quoted value, and after a complete part:
/// - the cookie's own `name=value` (before its first `;`), whatever the value;
/// - an attribute whose value, as its grammar allows, cannot hold that comma: `Secure`,
///   `HttpOnly`, `Partitioned` (no value), `SameSite=Strict|Lax|None`, `Priority=Low|Medium|High`,
///   `Max-Age` of digits, `Domain` of letters, digits, `-` and `.`, an `Expires` date past its
///   weekday (`Expires=Wed, 09 Jun 2021 …` holds its own comma), and a `Path` starting with `/`.
/// An attribute the splitter does not know (`Comment`, `Foo`) never ends a field: its value may
/// hold anything but `;`. A quote at the start of a value runs to the closing quote, `;` and all;
/// a quote never closed is no quote, so it does not swallow the following fields.
///
/// What stays ambiguous, because the joined text reads the same both ways: a cookie value with
/// `, name=` unquoted (`a=x, b=y`), a `Path` value with one (`Path=/x, b=y`), or a known
/// attribute followed by one (`SameSite=Lax, b=y`, which is exactly how URLSession joins
/// `a=1; SameSite=Lax` and `b=y`) is split; a field after an unknown attribute, or after an
/// unclosed quote that a quote in a later field closes, is not, and is lost to the previous cookie. A server
/// that puts commas in values should quote them (`a="x, b=y"`); where cookies matter, use
/// CurlTransport, which hands over each field as sent.
enum SetCookieSplitter {
    static func split(_ joined: String) -> [String] {
        let bytes = Array(joined.utf8)
        guard bytes.contains(UInt8(ascii: ",")) else { return [joined] }
        let lastQuote = bytes.lastIndex(of: UInt8(ascii: "\"")) ?? -1
        var cookies: [String] = []
        var start = 0
        var state = State()
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if state.step(byte, isClosedLater: lastQuote > index), byte == UInt8(ascii: ","),
                startsCookie(bytes, after: index)
            {
                cookies.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
                state = State()
            } else if byte == UInt8(ascii: ","), !state.inQuote {
                state.append(byte)
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
        /// Whether the current part is an attribute (after the cookie's first `;`).
        var isAttribute = false
        /// The current part's name (before its `=`), lowercased, and whether its `=` was seen.
        var key: [UInt8] = []
        var inValue = false
        /// The current value's bytes, lowercased, blanks included.
        var value: [UInt8] = []

        /// Takes one byte; true when a comma here may end the field.
        mutating func step(_ byte: UInt8, isClosedLater: Bool) -> Bool {
            if inQuote {
                if byte == UInt8(ascii: "\"") { inQuote = false }
                return false
            }
            switch byte {
            case UInt8(ascii: ";"):
                startPart()
                isAttribute = true
                return false
            case UInt8(ascii: "=") where !inValue:
                inValue = true
                atValueStart = true
                return false
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if inValue, !atValueStart { value.append(byte) }
                return true
            case UInt8(ascii: "\"") where atValueStart && isClosedLater:
                inQuote = true
                atValueStart = false
                return false
            case UInt8(ascii: ","):
                return mayEndHere
            default:
                atValueStart = false
                append(byte)
                return true
            }
        }

        /// Adds a byte of the current name or value.
        mutating func append(_ byte: UInt8) {
            let lower = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
            if inValue {
                value.append(lower)
            } else if byte != UInt8(ascii: " ") {
                key.append(lower)
            }
        }

        /// Whether the part read so far is complete, so a comma after it may end the field.
        private var mayEndHere: Bool {
            guard isAttribute else { return true }
            var trimmed = value[...]
            while let last = trimmed.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
                trimmed = trimmed.dropLast()
            }
            let text = String(decoding: trimmed, as: UTF8.self)
            switch String(decoding: key, as: UTF8.self) {
            case "secure", "httponly", "partitioned": return trimmed.isEmpty
            case "samesite": return ["strict", "lax", "none"].contains(text)
            case "priority": return ["low", "medium", "high"].contains(text)
            case "max-age":
                let digits = trimmed.first == UInt8(ascii: "-") ? trimmed.dropFirst() : trimmed
                return !digits.isEmpty && digits.allSatisfy { (0x30...0x39).contains($0) }
            case "domain":
                return !trimmed.isEmpty
                    && trimmed.allSatisfy {
                        (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-")
                            || $0 == UInt8(ascii: ".")
                    }
            // `Expires=Wed,`: the comma after a weekday is the date's own.
            case "expires": return trimmed.contains { (0x30...0x39).contains($0) }
            case "path": return trimmed.first == UInt8(ascii: "/")
            default: return false
            }
        }

        private mutating func startPart() {
            key = []
            inValue = false
            atValueStart = false
            value = []
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
