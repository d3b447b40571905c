import Foundation

/// Supplies the credential the authentication middleware puts on requests, and a new one when the
/// old one expires or the server rejects it.
///
/// ```swift
/// struct OAuthTokens: CredentialProvider {
///     let store: TokenStore          // your actor holding the access and refresh tokens
///
///     func credential() async throws -> Credential {
///         let tokens = try await store.current()
///         return .bearer(tokens.access, expiresAt: tokens.expiry)
///     }
///
///     func refresh(rejecting credential: Credential) async throws -> Credential? {
///         let tokens = try await store.refresh()   // POST /oauth/token with the refresh token
///         return .bearer(tokens.access, expiresAt: tokens.expiry)
///     }
/// }
/// ```
///
/// The middleware calls ``refresh(rejecting:)`` at most once at a time, however many requests need
/// it; every waiting request continues with its result.
///
/// Both requirements have no default, so a `refresh` with another signature (returning
/// `Credential` instead of `Credential?`, say) fails to compile instead of being silently ignored.
/// A provider that cannot refresh returns `nil`; the authentication middleware then hands the
/// server's 401 back as it is, and says so in its log.
///
/// A provider whose refresh calls the API (`POST /oauth/token`) should send that call with a client
/// of its own, without the authentication middleware (or with a route whose
/// ``Route/requiresAuthentication`` is `false`): through the same middleware it would wait for itself.
public protocol CredentialProvider: Sendable {
    /// The credential to use first.
    func credential() async throws -> Credential

    /// A credential to replace `credential`, which has expired or was rejected; `nil` when this
    /// provider cannot refresh, so the server's rejection reaches the caller as it is.
    func refresh(rejecting credential: Credential) async throws -> Credential?
}

/// A provider that always gives one fixed credential and never refreshes.
public struct FixedCredential: CredentialProvider {
    /// The credential.
    public let value: Credential

    /// Creates a provider of `credential`.
    public init(_ credential: Credential) {
        self.value = credential
    }

    /// The fixed credential.
    public func credential() async throws -> Credential {
        value
    }

    /// Cannot refresh: `nil`.
    public func refresh(rejecting credential: Credential) async throws -> Credential? {
        nil
    }
}

/// A provider built from two closures: one for the first credential, one to refresh it.
public struct ClosureCredentialProvider: CredentialProvider {
    private let initial: @Sendable () async throws -> Credential
    private let renew: @Sendable (Credential) async throws -> Credential?

    /// Creates a provider.
    ///
    /// - Parameters:
    ///   - credential: Gives the first credential.
    ///   - refresh: Gives a credential replacing a rejected or expired one, or `nil` if it cannot.
    public init(
        credential: @escaping @Sendable () async throws -> Credential,
        refresh: @escaping @Sendable (Credential) async throws -> Credential?
    ) {
        self.initial = credential
        self.renew = refresh
    }

    /// The first credential.
    public func credential() async throws -> Credential {
        try await initial()
    }

    /// A replacement for `credential`.
    public func refresh(rejecting credential: Credential) async throws -> Credential? {
        try await renew(credential)
    }
}
