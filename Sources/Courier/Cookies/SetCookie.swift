import Foundation

/// A `Set-Cookie` header value taken apart by RFC 6265 §5.2: the name-value pair and the
/// attributes a jar acts on (the last of each kind wins; unknown ones are ignored).
struct SetCookie: Equatable {
    var name: String
    var value: String
    var expires: Date?
    /// Seconds; `<= 0` deletes.
    var maxAge: Int64?
    /// Lowercased, without a leading dot; `nil` when absent or empty.
    var domain: String?
    /// `nil` when absent or not starting with `/` (the default path applies).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: String?

    /// `nil` for a value a jar ignores: no `=` in its first part, an empty name, or a control
    /// character in the name or value.
    init?(_ header: String) {
        var parts = header.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        name = Self.trim(pair[..<equals])
        value = Self.trim(pair[pair.index(after: equals)...])
        guard !name.isEmpty, !Self.hasControlCharacter(name), !Self.hasControlCharacter(value) else { return nil }
        for attribute in parts {
            let equals = attribute.firstIndex(of: "=")
            let key = Self.trim(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let value = equals.map { Self.trim(attribute[attribute.index(after: $0)...]) } ?? ""
            apply(key, value)
        }
    }

    /// The cookies of one `Set-Cookie` field, which a transport may have joined from several with
    /// commas (URLSession does): split at each comma followed by a `name=`, never inside an
    /// `Expires` date (`Wed, 09 Jun 2021 …` has no `=` before its next `;`).
    static func split(_ field: String) -> [String] {
        guard field.contains(",") else { return [field] }
        var cookies: [String] = []
        var current = Substring()
        var rest = field[...]
        while let comma = rest.firstIndex(of: ",") {
            let after = rest[rest.index(after: comma)...]
            let nextPart = after.prefix { $0 != ";" && $0 != "," }
            current += rest[..<comma]
            if let equals = nextPart.firstIndex(of: "="), !trim(nextPart[..<equals]).contains(" ") {
                cookies.append(String(current))
                current = Substring()
            } else {
                current += ","
            }
            rest = after
        }
        current += rest
        cookies.append(String(current))
        return cookies.map { trim($0[...]) }.filter { !$0.isEmpty }
    }

    private mutating func apply(_ key: String, _ value: String) {
        switch key {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return }
            // Too many digits is still a very long or a negative age.
            let magnitude = digits.count > 12 ? Int64(1) << 40 : Int64(digits) ?? 0
            maxAge = value.hasPrefix("-") ? -magnitude : magnitude
        case "domain":
            let domain = value.hasPrefix(".") ? String(value.dropFirst()) : value
            if !domain.isEmpty { self.domain = domain.lowercased() }
        case "path":
            path = value.hasPrefix("/") ? value : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            sameSite = value
        default:
            break
        }
    }

    private static func trim(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    private static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }
    }
}
