import Courier
import Foundation

/// A clock for the retry middleware whose sleeps return at once and move its time forward.
final class ManualClock: Sendable {
    private let state: Locked<(now: Date, sleeps: [Duration])>

    init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Locked((now, []))
    }

    var now: Date { state.withLock { $0.now } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(by duration: Duration) {
        state.withLock { $0.now.addTimeInterval(duration.timeInterval) }
    }

    func retryClock(random: @escaping @Sendable () -> Double = { 1 }) -> RetryMiddleware.Clock {
        RetryMiddleware.Clock(
            now: { self.now },
            sleep: { duration in
                try Task.checkCancellation()
                self.state.withLock { state in
                    state.sleeps.append(duration)
                    state.now.addTimeInterval(duration.timeInterval)
                }
            },
            random: random
        )
    }
}

/// Keeps every line it is given.
final class CapturingLogHandler: LogSink {
    let minimumLevel: LogLevel
    private let captured = Locked<[(LogLevel, String)]>([])

    init(minimumLevel: LogLevel = .debug) {
        self.minimumLevel = minimumLevel
    }

    func log(_ level: LogLevel, _ message: String) {
        captured.withLock { $0.append((level, message)) }
    }

    var lines: [String] { captured.withLock { $0.map(\.1) } }
    var entries: [(LogLevel, String)] { captured.withLock { $0 } }
}

extension Duration {
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
