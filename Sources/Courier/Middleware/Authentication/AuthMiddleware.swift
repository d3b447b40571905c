import Foundation

/// Puts a credential on every request whose route requires authentication, refreshes it before it
/// expires and when the server rejects it, and replays the rejected request once.
///
/// ```swift
/// let client = APIClient(baseURL: api, middlewares: [
///     AuthMiddleware(credential: .apiKey(key, queryItem: "api_key")),   // fixed
///     // or: AuthMiddleware(provider: OAuthTokens(store: tokens))        // refreshable
/// ])
/// ```
///
/// However many requests are rejected at once, one refresh runs and every one of them continues
/// with its result; a request rejected with a credential that has since been replaced is replayed
/// with the new one without another refresh. A failed refresh reaches every waiting request as
/// ``APIError/Kind/authentication(_:)`` with ``AuthenticationFailure/refreshFailed``, and is
/// remembered for ``Configuration/refreshFailureCooldown``: requests rejected meanwhile fail the same
/// way without asking the provider again. Too many refreshes (failed ones included) in a short
/// window stop with ``AuthenticationFailure/refreshLimitExceeded`` instead of looping. Routes whose
/// ``Route/requiresAuthentication`` is `false` pass through untouched.
public struct AuthMiddleware: Middleware {
    /// How the middleware decides when to refresh.
    public struct Configuration: Sendable {
        /// Refresh a credential this long before its ``Credential/expiresAt``, or a quarter of its
        /// lifetime (from when the provider gave it) when that is shorter.
        public var refreshMargin: Duration
        /// At most this many refreshes of a refused credential within ``refreshWindow``; one more
        /// fails the request. Refreshes ahead of an expiry do not count.
        public var maximumRefreshesPerWindow: Int
        /// The window ``maximumRefreshesPerWindow`` counts over. Failed refreshes count too.
        public var refreshWindow: Duration
        /// How long a failed refresh is remembered: meanwhile every request rejected with the same
        /// credential fails at once with that failure, so a failing identity provider is not asked
        /// again by each request. 5 seconds by default; zero asks again every time.
        public var refreshFailureCooldown: Duration
        /// Whether a response means the credential was rejected: a 401 by default.
        public var isRejection: @Sendable (HTTPResponse) -> Bool
        /// The current time; injectable for tests.
        public var now: @Sendable () -> Date
        /// Where the middleware says what a caller would otherwise have to guess (a refused
        /// credential that the provider cannot refresh); nothing is written when `nil`.
        public var log: (any LogSink)?

        /// Creates a configuration.
        public init(
            refreshMargin: Duration = .seconds(30),
            maximumRefreshesPerWindow: Int = 3,
            refreshWindow: Duration = .seconds(30),
            refreshFailureCooldown: Duration = .seconds(5),
            isRejection: @escaping @Sendable (HTTPResponse) -> Bool = { $0.status == .unauthorized },
            now: @escaping @Sendable () -> Date = { Date() },
            log: (any LogSink)? = nil
        ) {
            self.log = log
            self.refreshMargin = refreshMargin
            self.maximumRefreshesPerWindow = maximumRefreshesPerWindow
            self.refreshWindow = refreshWindow
            self.refreshFailureCooldown = refreshFailureCooldown
            self.isRejection = isRejection
            self.now = now
        }
    }

    private let store: CredentialStore
    private let configuration: Configuration
    private let providerName: String

    /// Authenticates with credentials from `provider`, refreshing them as it allows.
    public init(provider: some CredentialProvider, configuration: Configuration = Configuration()) {
        self.store = CredentialStore(provider: provider, settings: configuration)
        self.configuration = configuration
        providerName = String(describing: type(of: provider))
    }

    /// Authenticates with one fixed credential; a rejection reaches the caller as it is.
    public init(credential: Credential) {
        self.init(provider: FixedCredential(credential))
    }

    /// Authenticates the request, sends it, and on a rejection refreshes and replays it once.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard request.policies.requiresAuthentication else { return try await next(request) }
        let credential = try await store.credential(for: request)
        let response = try await next(credential.authenticate(request))
        guard configuration.isRejection(response) else { return response }
        guard let renewed = try await store.refresh(rejecting: credential, request: request) else {
            if let log = configuration.log, log.minimumLevel <= .warning {
                log.log(
                    .warning,
                    "\(request): the server refused the credential (\(response.status)) and \(providerName) "
                        + "cannot refresh it (refresh(rejecting:) returned nil): the \(response.status.code) goes to the caller"
                )
            }
            return response
        }
        return try await next(renewed.authenticate(request))
    }
}
