import Foundation

/// A response's `Retry-After` (RFC 9110 §10.2.3), read one way for every part of Courier that
/// waits on it (``RetryMiddleware``, ``EventSource``): whole seconds, or an HTTP date.
enum RetryAfter {
    /// The wait the response asks for, from `now`: `nil` when it has no valid `Retry-After`; a
    /// date in the past is no wait.
    static func delay(in response: HTTPResponse, now: Date) -> Duration? {
        guard let value = response.headers[.retryAfter]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            return nil
        }
        if value.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) {
            // More digits than an Int holds is still a (very long) wait.
            return .seconds(Int(value) ?? Int.max / 1_000_000_000)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}
