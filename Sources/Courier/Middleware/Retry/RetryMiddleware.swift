import Foundation

/// Sends a request again when it fails in a way worth retrying, waiting between attempts.
///
/// ```swift
/// let client = APIClient(baseURL: api, middlewares: [RetryMiddleware()])
/// ```
///
/// What it retries, under the route's ``Route/retryPolicy`` or the middleware's own policy:
/// - statuses in ``RetryPolicy/retryableStatuses`` (408, 429, 500, 502, 503, 504) and transient
///   transport failures (``TransportFailure/connectionLost``, ``TransportFailure/cannotConnect``,
///   ``TransportFailure/timedOut``), never a cancellation, a passed deadline or a proxy that wants
///   credentials (``TransportFailure/proxyAuthenticationRequired``: the same request meets the same 407);
/// - only idempotent methods, unless the request carries an `Idempotency-Key` (a `POST` that fails
///   with a 500 reaches the server once). A connection that could not be made at all is retried
///   for any method, since nothing reached the server.
///
/// How long it waits: the server's `Retry-After` on 429 and 503 (seconds or an HTTP date), unless it
/// is longer than ``RetryPolicy/maximumRetryAfter``; otherwise exponential backoff with full jitter.
/// A request's ``HTTPRequest/timeout`` is the deadline for all its attempts together: each attempt
/// gets what is left of it, and a wait that would pass it is not started. When the middleware gives
/// up, the caller sees the last response or error as it was.
public struct RetryMiddleware: Middleware {
    /// The time and the waiting, injectable so tests run in milliseconds.
    public struct Clock: Sendable {
        /// The current time.
        public var now: @Sendable () -> Date
        /// Waits, throwing `CancellationError` if the task is cancelled meanwhile.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// A random number in `0...1`, for the jitter.
        public var random: @Sendable () -> Double

        /// Creates a clock.
        public init(
            now: @escaping @Sendable () -> Date,
            sleep: @escaping @Sendable (Duration) async throws -> Void,
            random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
        ) {
            self.now = now
            self.sleep = sleep
            self.random = random
        }

        /// The system's time and `Task.sleep`.
        public static let system = Clock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
    }

    /// The policy for requests whose route declares none.
    public let policy: RetryPolicy
    /// The budget shared by every request through this middleware, or `nil` for none.
    public let budget: RetryBudget?
    private let clock: Clock

    /// Creates a retry middleware.
    ///
    /// - Parameters:
    ///   - policy: Used when the route declares no ``Route/retryPolicy``.
    ///   - budget: Shared by every request through this middleware; `nil` for no budget.
    ///   - clock: The time and the waiting.
    public init(policy: RetryPolicy = .default, budget: RetryBudget? = RetryBudget(), clock: Clock = .system) {
        self.policy = policy
        self.budget = budget
        self.clock = clock
    }

    /// Sends the request, and again after a wait while it fails in a retryable way.
    public func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let policy = request.policies.retry ?? self.policy
        let deadline = request.timeout.map { clock.now().addingTimeInterval($0.timeInterval) }
        var attempt = 1
        while true {
            var attemptRequest = request
            if let deadline {
                attemptRequest.timeout = .seconds(max(0.001, deadline.timeIntervalSince(clock.now())))
            }
            let outcome: Result<HTTPResponse, any Error>
            do {
                outcome = .success(try await next(attemptRequest))
            } catch {
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                outcome = .failure(error)
            }
            guard let wait = delay(after: outcome, attempt: attempt, policy: policy, request: request),
                deadline.map({ clock.now().addingTimeInterval(wait.timeInterval) < $0 }) ?? true
            else { return try outcome.get() }
            try await clock.sleep(wait)
            attempt += 1
        }
    }

    /// How long to wait before the next attempt, or `nil` to stop here.
    private func delay(
        after outcome: Result<HTTPResponse, any Error>,
        attempt: Int,
        policy: RetryPolicy,
        request: HTTPRequest
    ) -> Duration? {
        // A stream whose head reached its caller is past retrying: its body has begun.
        if !request.mayBeSentAgain { return nil }
        let response: HTTPResponse?
        let mayResend: Bool
        switch outcome {
        case .success(let value):
            guard policy.retryableStatuses.contains(value.status.code) else {
                budget?.depositOnSuccess()
                return nil
            }
            response = value
            mayResend = policy.allowsRetry(of: request)
        case .failure(let error):
            guard let failure = Self.transientFailure(error) else { return nil }
            response = nil
            mayResend = policy.allowsRetry(of: request) || failure == .cannotConnect
        }
        let budgetAllows = budget?.spendOnFailure() ?? true
        guard mayResend, attempt < policy.maximumAttempts, budgetAllows, !Task.isCancelled else { return nil }
        if let response, let retryAfter = retryAfter(in: response) {
            return retryAfter <= policy.maximumRetryAfter ? retryAfter : nil
        }
        return backoff(policy.backoff, attempt: attempt)
    }

    private static func transientFailure(_ error: any Error) -> TransportFailure? {
        guard let error = error as? APIError, case .transport(let failure) = error.kind else { return nil }
        return [.connectionLost, .cannotConnect, .timedOut].contains(failure) ? failure : nil
    }

    /// The wait a 429 or 503 asks for: `Retry-After` in seconds or as an HTTP date.
    private func retryAfter(in response: HTTPResponse) -> Duration? {
        guard response.status == .tooManyRequests || response.status == .serviceUnavailable else { return nil }
        return RetryAfter.delay(in: response, now: clock.now())
    }

    /// `initial × multiplier^(attempt-1)`, capped, then drawn uniformly from zero to that with jitter.
    private func backoff(_ backoff: RetryPolicy.Backoff, attempt: Int) -> Duration {
        let growth = pow(max(1, backoff.multiplier), Double(attempt - 1))
        let capped = min(backoff.initial.timeInterval * growth, backoff.maximum.timeInterval)
        let seconds = backoff.usesJitter ? capped * min(1, max(0, clock.random())) : capped
        return .seconds(seconds)
    }
}
