import Foundation

/// RFC 9111 §4.2: how old a response is and how long it stays fresh, from its headers and the
/// times the cache sent the request and received the response.
enum CacheFreshness {
    /// The statuses a cache may give a heuristic lifetime (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The `Age` a response carries (§5.1): the first member of a list, `nil` when it is not a
    /// non-negative integer (an invalid field is ignored).
    static func ageValue(of headers: HTTPHeaders) -> Int? {
        guard let field = headers.values(for: "Age").first else { return nil }
        let first = field.split(separator: ",", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return CacheControl.deltaSeconds(first)
    }

    /// The `Date` a response carries, `nil` when it has none or it is not an HTTP date.
    static func dateValue(of headers: HTTPHeaders, now: Date) -> Date? {
        headers.values(for: "Date").first.flatMap { HTTPDate.parse($0, now: now) }
    }

    /// The corrected initial age (§4.2.3): the larger of the apparent age (`Date` to receipt)
    /// and the `Age` the response carries plus the time the exchange took.
    static func correctedInitialAge(of headers: HTTPHeaders, requestTime: Date, responseTime: Date) -> TimeInterval {
        let dateValue = dateValue(of: headers, now: responseTime) ?? responseTime
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = TimeInterval(ageValue(of: headers) ?? 0) + responseDelay
        return max(apparentAge, correctedAgeValue)
    }

    /// How heuristic freshness is computed, when it is.
    struct Heuristic: Equatable {
        var fraction: Double
        var limit: TimeInterval
    }

    /// The freshness lifetime (§4.2.1): `s-maxage` for a shared cache, then `max-age`, then
    /// `Expires` − `Date`; else a heuristic lifetime (§4.2.2) when `heuristic` is given and the
    /// status allows it; `nil` when none applies. An `Expires` that is not an HTTP date, or a `max-age` that is not
    /// a delta-seconds, gives 0.
    static func lifetime(
        of headers: HTTPHeaders, status: Int, isShared: Bool, responseTime: Date, heuristic: Heuristic?
    ) -> TimeInterval? {
        let control = CacheControl(headers)
        if isShared, let sharedMaxAge = control.sharedMaxAge { return TimeInterval(sharedMaxAge) }
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        if control.hasInvalidMaxAge { return 0 }
        let date = dateValue(of: headers, now: responseTime) ?? responseTime
        if let expires = headers.values(for: "Expires").first {
            guard let expiry = HTTPDate.parse(expires, now: responseTime) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        guard let heuristic, heuristicallyCacheable.contains(status),
            let lastModified = headers.values(for: .lastModified).first.flatMap({ HTTPDate.parse($0, now: date) })
        else { return nil }
        let sinceModified = max(0, date.timeIntervalSince(lastModified))
        return min(sinceModified * heuristic.fraction, heuristic.limit)
    }
}
