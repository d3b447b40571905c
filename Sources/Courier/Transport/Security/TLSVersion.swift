/// A version of TLS, for the oldest one a transport accepts.
public enum TLSVersion: String, Sendable, Hashable, CaseIterable, Comparable {
    /// TLS 1.2 (RFC 5246).
    case tls12 = "TLS 1.2"
    /// TLS 1.3 (RFC 8446).
    case tls13 = "TLS 1.3"

    /// Whether `lhs` is older than `rhs`.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool {
        lhs == .tls12 && rhs == .tls13
    }
}
