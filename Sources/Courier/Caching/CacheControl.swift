import Foundation

/// The directives of `Cache-Control` header fields that the response cache acts on, in a request
/// or in a response (RFC 9111 §5.2, RFC 5861).
///
/// A directive that appears more than once keeps its first value (RFC 9111 §4.2.1 allows the first
/// or treating the response as stale); a value that is not a delta-seconds is ignored; one too
/// large for 31 bits is read as 2³¹ (§1.2.2).
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var isPrivate = false
    var mustRevalidate = false
    var proxyRevalidate = false
    var onlyIfCached = false
    var maxAge: Int?
    /// Whether the first `max-age` has no valid delta-seconds (`max-age=-1`, `max-age=abc`, a bare
    /// `max-age`): a response with one is stale (§4.2.1 encourages it), not left to `Expires` or
    /// the heuristic.
    var hasInvalidMaxAge = false
    var sharedMaxAge: Int?
    /// A request's `max-stale`: `Int.max` when it has no value (any staleness).
    var maxStale: Int?
    var minFresh: Int?
    var staleWhileRevalidate: Int?
    var staleIfError: Int?

    /// The largest delta-seconds a cache must handle (RFC 9111 §1.2.2).
    static let deltaSecondsLimit = 2_147_483_648

    /// Reads every `Cache-Control` field of `headers`; unknown directives and bad values are ignored.
    init(_ headers: HTTPHeaders) {
        var seen: Set<String> = []
        for value in headers.values(for: .cacheControl) {
            for directive in Self.directives(of: value) {
                let (name, argument) = directive
                guard seen.insert(name).inserted else { continue }
                apply(name, argument)
            }
        }
    }

    private mutating func apply(_ name: String, _ argument: String?) {
        let seconds = argument.flatMap(Self.deltaSeconds)
        switch name {
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "private": isPrivate = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "only-if-cached": onlyIfCached = true
        case "max-age":
            maxAge = seconds
            hasInvalidMaxAge = seconds == nil
        case "s-maxage": sharedMaxAge = seconds
        case "max-stale": maxStale = argument == nil ? Int.max : seconds
        case "min-fresh": minFresh = seconds
        case "stale-while-revalidate": staleWhileRevalidate = seconds
        case "stale-if-error": staleIfError = seconds
        default: break
        }
    }

    /// The directives of one field value: lowercased names, arguments unquoted; commas inside a
    /// quoted string do not split.
    private static func directives(of value: String) -> [(String, String?)] {
        var items: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
                continue
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                items.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        items.append(current)
        return items.compactMap { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty else { return nil }
            guard parts.count == 2 else { return (name, nil) }
            var argument = parts[1].trimmingCharacters(in: .whitespaces)
            if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
                argument = String(argument.dropFirst().dropLast())
            }
            return (name, argument)
        }
    }

    /// A delta-seconds value (RFC 9111 §1.2.2): digits only; too large a number is 2³¹.
    static func deltaSeconds(_ text: String) -> Int? {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        let significant = text.drop { $0 == "0" }
        guard significant.count <= 10, let value = Int(significant.isEmpty ? "0" : significant) else {
            return deltaSecondsLimit
        }
        return min(value, deltaSecondsLimit)
    }
}
