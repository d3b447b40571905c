import Foundation

/// Dates as HTTP headers write them (`Retry-After`, `Expires`, `Last-Modified`, `Date`): the
/// IMF-fixdate form, plus the obsolete RFC 850 and asctime forms that RFC 9110 §5.6.7 requires
/// recipients to accept, and nothing else.
///
/// Parsed by hand, not by `DateFormatter`: FoundationNetworking's formatter traps (a fatal
/// "Incorrect range" error) on some text (found by fuzzing), accepts zones other than `GMT`, and
/// reads a two-digit year through a fixed century window.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// The date a header value names, or `nil` when it is not one of the three HTTP date forms.
    ///
    /// - Parameter now: The time a two-digit RFC 850 year is read against: a year that would be
    ///   more than 50 years after it is the previous century's (RFC 9110 §5.6.7).
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        let words = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch words.count {
        case 6: return imfFixdate(words)
        case 4: return rfc850(words, now: now)
        case 5: return asctime(words)
        default: return nil
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ words: [String]) -> Date? {
        guard words[0].hasSuffix(","), shortDays.contains(String(words[0].dropLast())), words[5] == "GMT",
            words[1].count == 2, let day = digits(words[1]), let month = months.firstIndex(of: words[2]),
            words[3].count == 4, let year = digits(words[3])
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: words[4])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850(_ words: [String], now: Date) -> Date? {
        let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard words[0].hasSuffix(","), longDays.contains(String(words[0].dropLast())), words[3] == "GMT",
            parts.count == 3, parts[0].count == 2, let day = digits(parts[0]),
            let month = months.firstIndex(of: parts[1]), parts[2].count == 2, let twoDigits = digits(parts[2])
        else { return nil }
        let currentYear = civil(fromDays: Int((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        if year <= currentYear - 50 { year += 100 }
        return date(year: year, month: month + 1, day: day, time: words[2])
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func asctime(_ words: [String]) -> Date? {
        guard shortDays.contains(words[0]), let month = months.firstIndex(of: words[1]),
            (1...2).contains(words[2].count), let day = digits(words[2]), words[4].count == 4,
            let year = digits(words[4])
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: words[3])
    }

    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// The date at `HH:mm:ss` GMT on that day, or `nil` when any part is out of range.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }), let hour = digits(parts[0]),
            let minute = digits(parts[1]), let second = digits(parts[2]), hour < 24, minute < 60, second <= 60,
            year >= 1000, day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        // A leap second (60) is read as the last second of its minute.
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date `days` after 1970-01-01.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The IMF-fixdate form of `date`: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let (year, month, day) = civil(fromDays: days)
        let inDay = seconds - days * 86_400
        let weekday = ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday (index 3 from Monday).
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(shortDays[weekday]), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }
}
