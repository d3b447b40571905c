import Foundation

/// RFC 6265 §5.1.1's lenient date parser for `Expires`: tokens in any order, a time, a day of the
/// month, a month name and a year (two-digit years mapped to 1970–2069), checked for range.
enum CookieDate {
    static func parse(_ text: String) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(text) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let value = leadingDigits(token, 1...2) {
                day = value
            } else if month == nil, let value = monthNumber(token) {
                month = value
            } else if year == nil, let value = leadingDigits(token, 2...4) {
                year = value
            }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59,
            day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// The date's tokens: runs of non-delimiter bytes.
    private static func tokens(_ text: String) -> [Substring.UTF8View] {
        let utf8 = Substring(text).utf8
        return utf8.split { byte in
            byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
                || (0x7B...0x7E).contains(byte)
        }
    }

    /// 1–2 digits, optionally followed by non-digits; `count` digits allowed.
    private static func leadingDigits(_ token: Substring.UTF8View, _ count: ClosedRange<Int>) -> Int? {
        let digits = token.prefix { (0x30...0x39).contains($0) }
        guard count.contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hh:mm:ss`, each 1–2 digits, optionally followed by non-digits.
    private static func parseTime(_ token: Substring.UTF8View) -> (Int, Int, Int)? {
        let parts = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        func number(_ part: Substring.UTF8View.SubSequence, exact: Bool) -> Int? {
            let digits = part.prefix { (0x30...0x39).contains($0) }
            guard (1...2).contains(digits.count), !exact || digits.count == part.count else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard let hour = number(parts[0], exact: true), let minute = number(parts[1], exact: true),
            let second = number(parts[2], exact: false)
        else { return nil }
        return (hour, minute, second)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func monthNumber(_ token: Substring.UTF8View) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian calendar).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
