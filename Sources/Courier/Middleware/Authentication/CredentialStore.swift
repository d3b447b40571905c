import Foundation

/// The authentication middleware's shared state: the current credential, the one load or refresh
/// that may be running, and when recent refreshes happened.
///
/// Every request that needs a credential while one is being fetched waits for that fetch (single
/// flight). A request whose credential was rejected after another request already refreshed it is
/// given the newer credential without a second refresh. A fetch goes on even if every waiter is
/// cancelled, so a rotating refresh token is never lost half way.
final class CredentialStore: Sendable {
    private struct State {
        var current: Credential?
        /// When the current credential was obtained: with its expiry, its lifetime.
        var obtained: Date?
        /// The load or refresh in flight, with the credential it replaces (`nil` for the first load).
        var fetch: (replacing: Credential?, work: SharedWork<Credential?>)?
        /// When the provider last refreshed a rejected credential (or failed to), within the window.
        /// Refreshes ahead of an expiry are not counted: the server refused nothing.
        var refreshTimes: [Date] = []
        /// The last failed refresh: the credential it was to replace, when, and the failure.
        var lastFailure: (replacing: Credential, at: Date, error: APIError)?
    }

    private let provider: any CredentialProvider
    private let settings: AuthMiddleware.Configuration
    private let state = Locked(State())

    init(provider: any CredentialProvider, settings: AuthMiddleware.Configuration) {
        self.provider = provider
        self.settings = settings
    }

    /// The credential to send: the current one, loaded first if there is none, refreshed first if
    /// it expires within the margin (the configured one, or a quarter of the credential's lifetime
    /// when that is shorter: a token that lives 2 seconds is not refreshed on every request).
    func credential(for request: HTTPRequest) async throws -> Credential {
        var (current, obtained) = state.withLock { ($0.current, $0.obtained) }
        if current == nil {
            current = try await fetch(replacing: nil, because: .firstUse, request: request)
            obtained = state.withLock { $0.obtained }
        }
        guard let current else { return try unavailable(request) }
        guard current.expires(within: margin(for: current, obtained: obtained), of: settings.now()) else {
            return current
        }
        return try await fetch(replacing: current, because: .expiring, request: request) ?? current
    }

    /// A credential to replace `rejected`, or `nil` when the provider cannot refresh.
    func refresh(rejecting rejected: Credential, request: HTTPRequest) async throws -> Credential? {
        try await fetch(replacing: rejected, because: .rejected, request: request)
    }

    /// Why a credential is fetched.
    private enum Reason {
        case firstUse, expiring, rejected
    }

    /// How long before its expiry a credential is refreshed.
    private func margin(for credential: Credential, obtained: Date?) -> Duration {
        guard let expiresAt = credential.expiresAt, let obtained else { return settings.refreshMargin }
        let lifetime = max(0, expiresAt.timeIntervalSince(obtained))
        return min(settings.refreshMargin, .seconds(lifetime / 4))
    }

    private func unavailable(_ request: HTTPRequest) throws -> Credential {
        throw APIError(
            .authentication(.credentialUnavailable), message: "the credential provider gave no credential",
            request: request
        )
    }

    /// Joins the fetch that replaces `old`, or starts it; returns at once when `old` has already
    /// been replaced.
    private func fetch(replacing old: Credential?, because reason: Reason, request: HTTPRequest) async throws
        -> Credential?
    {
        let plan: Result<(SharedWork<Credential?>, Int)?, APIError> = state.withLock { state in
            if let current = state.current, current != old { return .success(nil) }
            if let fetch = state.fetch, fetch.replacing == old, let member = fetch.work.enroll() {
                return .success((fetch.work, member))
            }
            if let old, reason == .rejected {
                let now = settings.now()
                if let failure = state.lastFailure, failure.replacing == old,
                    now.timeIntervalSince(failure.at) < settings.refreshFailureCooldown.timeInterval
                {
                    return .failure(failure.error.attaching(request: request))
                }
                state.refreshTimes.removeAll { now.timeIntervalSince($0) > settings.refreshWindow.timeInterval }
                guard state.refreshTimes.count < settings.maximumRefreshesPerWindow else {
                    return .failure(refreshLimitError(request))
                }
            }
            let work = SharedWork<Credential?>(outlivesMembers: true) { [self] in
                try await runFetch(replacing: old, counted: reason == .rejected)
            }
            state.fetch = (old, work)
            return .success((work, work.enroll() ?? 0))
        }
        guard let (work, member) = try plan.get() else {
            return state.withLock { $0.current }
        }
        do {
            return try await work.value(for: member)
        } catch let error as APIError {
            throw error.attaching(request: request)
        }
    }

    /// Asks the provider, records the result, and turns the provider's errors into ``APIError``s.
    private func runFetch(replacing old: Credential?, counted: Bool) async throws -> Credential? {
        let fetched: Credential?
        do {
            if let old {
                fetched = try await provider.refresh(rejecting: old)
            } else {
                fetched = try await provider.credential()
            }
        } catch {
            let failure: AuthenticationFailure = old == nil ? .credentialUnavailable : .refreshFailed
            let verb = old == nil ? "get" : "refresh"
            let apiError = APIError(
                .authentication(failure), message: "the credential provider failed to \(verb) the credential: \(error)",
                underlyingError: error
            )
            let now = settings.now()
            state.withLock { state in
                state.fetch = nil
                if let old {
                    // A failure answers the next requests for a while, and counts toward the limit.
                    state.refreshTimes.append(now)
                    state.lastFailure = (old, now, apiError)
                }
            }
            throw apiError
        }
        let now = settings.now()
        state.withLock { state in
            if let fetched {
                state.current = fetched
                state.obtained = now
                if old != nil, counted { state.refreshTimes.append(now) }
            }
            state.fetch = nil
        }
        return fetched
    }

    private func refreshLimitError(_ request: HTTPRequest) -> APIError {
        let window = DurationText.seconds(settings.refreshWindow)
        return APIError(
            .authentication(.refreshLimitExceeded),
            message:
                "the server refused the credential again after \(settings.maximumRefreshesPerWindow) refreshes within "
                + "\(window): the provider's new credentials are refused too",
            request: request
        )
    }
}
