/// Why the authentication middleware could not authenticate a request.
///
/// Match it in a pattern: `case .authentication(.refreshFailed)`.
public struct AuthenticationFailure: Hashable, Sendable, CustomStringConvertible {
    /// A short name of the cause, e.g. `refreshFailed`.
    public let name: String

    /// Creates a cause; prefer the predefined ones.
    public init(_ name: String) {
        self.name = name
    }

    /// The cause's name.
    public var description: String { name }

    /// The credential provider could not supply a first credential.
    public static let credentialUnavailable = AuthenticationFailure("credentialUnavailable")
    /// The credential provider failed to refresh an expired or rejected credential.
    public static let refreshFailed = AuthenticationFailure("refreshFailed")
    /// More refreshes were needed within the window than the middleware allows: the server keeps
    /// rejecting fresh credentials, so the middleware stops instead of looping.
    public static let refreshLimitExceeded = AuthenticationFailure("refreshLimitExceeded")
}
