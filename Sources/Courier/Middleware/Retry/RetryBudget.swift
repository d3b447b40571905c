import Foundation

/// A limit on retries shared by every request through one retry middleware, so a failing server
/// is not hammered by every caller at once.
///
/// A token bucket in the manner of gRPC's retry throttling: it starts full; each failure that could
/// be retried takes one token, each success puts back ``tokenRatio``; retries are allowed only
/// while more than half the tokens remain. When a server fails for everyone, retries stop after a
/// handful of failures and resume as requests start to succeed again.
///
/// ```swift
/// let budget = RetryBudget(maximumTokens: 20, tokenRatio: 0.1)
/// let retry = RetryMiddleware(budget: budget)
/// ```
public final class RetryBudget: Sendable {
    /// The bucket's size.
    public let maximumTokens: Double
    /// What one success puts back.
    public let tokenRatio: Double
    private let tokens: Locked<Double>

    /// Creates a full budget.
    public init(maximumTokens: Double = 10, tokenRatio: Double = 0.1) {
        self.maximumTokens = max(1, maximumTokens)
        self.tokenRatio = max(0, tokenRatio)
        self.tokens = Locked(self.maximumTokens)
    }

    /// The tokens left.
    public var remainingTokens: Double {
        tokens.withLock { $0 }
    }

    /// Records a failure that could be retried; returns whether the budget still allows the retry.
    func spendOnFailure() -> Bool {
        tokens.withLock { tokens in
            tokens = max(0, tokens - 1)
            return tokens > maximumTokens / 2
        }
    }

    /// Records a success.
    func depositOnSuccess() {
        tokens.withLock { tokens in
            tokens = min(maximumTokens, tokens + tokenRatio)
        }
    }
}
