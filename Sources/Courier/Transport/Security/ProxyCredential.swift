/// A user name and password for a proxy, sent to the proxy only (Basic, Digest, NTLM or whatever
/// it asks for), never to an origin.
///
/// ``description``, `dump` and every error and log line show `<redacted>` in place of the password.
public struct ProxyCredential: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The user name.
    public var user: String
    /// The password; never shown.
    var password: String

    /// Creates a credential.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The user, with the password hidden: `ProxyCredential(user: svc, password: <redacted>)`.
    public var description: String {
        "ProxyCredential(user: \(user), password: <redacted>)"
    }

    /// A mirror without the password, so `dump` and debuggers do not show it either.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "password": "<redacted>"], displayStyle: .struct)
    }
}
