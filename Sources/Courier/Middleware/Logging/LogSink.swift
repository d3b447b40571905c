import Foundation

/// How much a log line matters.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Headers, bodies: for tracking a problem down.
    case debug
    /// One line per exchange.
    case info
    /// Exchanges that ended with a client or server error status.
    case warning
    /// Exchanges that failed without a response.
    case error

    /// Orders levels from ``debug`` to ``error``.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The level's name: `debug`, `info`, `warning`, `error`.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// Where ``LoggingMiddleware`` writes. Implement it to send Courier's lines to your own logger.
///
/// ```swift
/// struct PrintLog: LogSink {
///     var minimumLevel: LogLevel { .info }
///     func log(_ level: LogLevel, _ message: String) { print("[\(level)] \(message)") }
/// }
/// ```
public protocol LogSink: Sendable {
    /// Lines below this level are never built, let alone written.
    var minimumLevel: LogLevel { get }

    /// Writes one line. Secrets are already redacted.
    func log(_ level: LogLevel, _ message: String)
}

/// Writes lines to standard error: `[courier] info: GET https://… → 200 OK in 12.1 ms, 512 bytes`.
public struct StandardErrorLogSink: LogSink {
    /// Lines below this level are dropped.
    public let minimumLevel: LogLevel

    /// Creates a sink that writes lines at `minimumLevel` and above.
    public init(minimumLevel: LogLevel = .info) {
        self.minimumLevel = minimumLevel
    }

    /// Writes the line to standard error.
    public func log(_ level: LogLevel, _ message: String) {
        FileHandle.standardError.write(Data("[courier] \(level): \(message)\n".utf8))
    }
}
