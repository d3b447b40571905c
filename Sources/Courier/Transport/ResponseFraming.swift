/// How every transport reads a response's framing, the same way: which statuses redirect, when
/// `Content-Length` cannot be trusted, and the error of a body over the size limit.
enum ResponseFraming {
    /// The statuses that redirect when they carry a `Location`.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Whether a head is a redirect to follow (a redirect status with a `Location`).
    static func isRedirect(status: Int, headers: HTTPHeaders) -> Bool {
        redirectStatuses.contains(status) && headers.contains(.location)
    }

    /// Why the Content-Length values cannot frame the body, if they cannot: not a number, or
    /// differing values (RFC 9112 §6.3).
    static func lengthProblem(_ headers: HTTPHeaders) -> String? {
        let values = headers.values(for: .contentLength)
        // The usual case, one plain number short enough to fit an Int, without taking it apart.
        if values.count == 1, (1...18).contains(values[0].utf8.count),
            values[0].utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 })
        {
            return nil
        }
        var lengths: [Int] = []
        for value in values {
            for part in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                guard let length = Self.length(part) else {
                    return "the response's Content-Length \"\(value)\" is not a number"
                }
                if !lengths.contains(length) { lengths.append(length) }
            }
        }
        guard lengths.count > 1 else { return nil }
        return
            "the response has conflicting Content-Length values (\(lengths.map(String.init).joined(separator: ", ")))"
    }

    /// One length of a Content-Length list: ASCII digits only (RFC 9110 §8.6: no sign, no blank
    /// inside), with blanks around; `nil` when it is not that or does not fit an `Int`.
    private static func length(_ part: Substring.UTF8View) -> Int? {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = part.firstIndex(where: { !isBlank($0) }), let last = part.lastIndex(where: { !isBlank($0) })
        else { return nil }
        var length = 0
        for byte in part[first...last] {
            guard byte &- UInt8(ascii: "0") < 10 else { return nil }
            let (times, overflowed) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflowed, !overflowedAgain else { return nil }
            length = sum
        }
        return length
    }

    /// The error of a body larger than `limit` bytes (after decompression).
    static func tooLargeError(limit: Int, request: HTTPRequest) -> APIError {
        APIError(
            .transport(.responseTooLarge), message: "the response body is larger than the limit of \(limit) bytes",
            request: request)
    }
}
