import Courier
import Foundation

/// Keeps every log line, at every level.
final class LogLines: LogSink {
    let minimumLevel = LogLevel.debug
    private let lines = Locked<[String]>([])
    func log(_ level: LogLevel, _ message: String) { lines.withLock { $0.append(message) } }
    var all: [String] { lines.withLock { $0 } }
}
