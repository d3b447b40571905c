/// The statuses a route accepts as success; any other fails the call with
/// ``APIError/Kind/unacceptableStatus(_:)`` (and the server's error body decoded).
///
/// ```swift
/// var acceptableStatuses: AcceptableStatuses { [200, 304] }
/// var acceptableStatuses: AcceptableStatuses { AcceptableStatuses(200..<400) }
/// ```
public struct AcceptableStatuses: Sendable, Hashable, ExpressibleByArrayLiteral {
    private let ranges: [Range<Int>]

    /// Accepts the codes in any of the ranges.
    public init(_ ranges: Range<Int>...) {
        self.ranges = ranges
    }

    /// Accepts exactly these codes.
    public init(arrayLiteral codes: Int...) {
        ranges = codes.map { $0..<($0 + 1) }
    }

    /// `200..<300`: the default.
    public static let success = AcceptableStatuses(200..<300)

    /// Whether a status is accepted.
    public func contains(_ status: HTTPStatus) -> Bool {
        ranges.contains { $0.contains(status.code) }
    }
}
