/// A version of TLS, for the oldest one a transport accepts.
public enum TLSVersion: String, Sendable, Hashable, CaseIterable, Comparable {
    /// TLS 1.2 (RFC 5246).
    case v1_2 = "TLS 1.2"
    /// TLS 1.3 (RFC 8446).
    case v1_3 = "TLS 1.3"

    /// Whether `lhs` is older than `rhs`.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool {
        lhs == .v1_2 && rhs == .v1_3
    }
}
