import Foundation

/// A `Set-Cookie` header value taken apart by RFC 6265 §5.2: the name-value pair and the
/// attributes a jar acts on (the last of each kind wins; unknown ones are ignored).
///
/// One field is one cookie (§5.2): a comma inside a value or a date is just a byte of it. Fields
/// that a transport joined with commas (URLSession does) are split before, by
/// ``SetCookieSplitter``, by the transport that joined them. Name and value keep their quotes; a
/// name or value with a control character or U+FFFD (a byte that was not UTF-8) is refused, as is
/// an empty name. An attribute value longer than 1024 bytes is ignored (RFC 6265bis §5.6).
struct SetCookie: Equatable {
    var name: String
    var value: String
    var expires: Date?
    /// Seconds; `<= 0` deletes.
    var maxAge: Int64?
    /// As sent, without one leading dot; `nil` when absent or empty. The jar canonicalises it.
    var domain: String?
    /// `nil` when absent or not starting with `/` (the default path applies).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: String?

    /// The longest attribute value acted on.
    static let maximumAttributeSize = 1024

    /// `nil` for a value a jar ignores: no `=` in its first part, an empty name, or a control
    /// character or U+FFFD in the name or value.
    init?(_ header: String) {
        var parts = header.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        name = Self.trim(pair[..<equals])
        value = Self.trim(pair[pair.index(after: equals)...])
        guard !name.isEmpty, Self.isAllowed(name), Self.isAllowed(value) else { return nil }
        for attribute in parts {
            let equals = attribute.firstIndex(of: "=")
            let key = Self.trim(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let value = equals.map { Self.trim(attribute[attribute.index(after: $0)...]) } ?? ""
            guard value.utf8.count <= Self.maximumAttributeSize else { continue }
            apply(key, value)
        }
    }

    private mutating func apply(_ key: String, _ value: String) {
        switch key {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return }
            // Too many digits is still a very long or a negative age.
            let magnitude = digits.count > 12 ? Int64(1) << 40 : Int64(digits) ?? 0
            maxAge = value.hasPrefix("-") ? -magnitude : magnitude
        case "domain":
            let domain = value.hasPrefix(".") ? String(value.dropFirst()) : value
            self.domain = domain.isEmpty ? nil : domain
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

    /// Without leading and trailing blanks (spaces and tabs), by bytes.
    static func trim(_ text: Substring) -> String {
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while start < end {
            let before = utf8.index(before: end)
            guard utf8[before] == 0x20 || utf8[before] == 0x09 else { break }
            end = before
        }
        return String(text[start..<end])
    }

    /// No control character but tab, no DEL, no U+FFFD (what a byte that was not UTF-8 became).
    static func isAllowed(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F || $0.value == 0xFFFD }
    }
}
