import Foundation

/// Dates as HTTP headers write them (`Retry-After`, `Expires`, `Last-Modified`, `Date`): the
/// IMF-fixdate form, plus the obsolete RFC 850 and asctime forms that RFC 9110 requires
/// recipients to accept.
enum HTTPDate {
    private static let formatters: [DateFormatter] = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ].map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }

    /// The date a header value names, or `nil` when it is not an HTTP date.
    ///
    /// Only the characters the three forms use reach `DateFormatter`: FoundationNetworking's traps
    /// (a fatal "Incorrect range" error) on some other text, so a server's `Retry-After` or
    /// `Expires` could otherwise crash the process (found by fuzzing).
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64, trimmed.utf8.allSatisfy(isDateCharacter) else { return nil }
        let collapsed = trimmed.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for formatter in formatters {
            if let date = formatter.date(from: collapsed) { return date }
        }
        return nil
    }

    /// Letters, digits, space, comma, colon and hyphen: everything an HTTP date is written with.
    private static func isDateCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// The IMF-fixdate form of `date`: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(_ date: Date) -> String {
        formatters[0].string(from: date)
    }
}
