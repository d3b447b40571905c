import Foundation

/// Durations as people read them: `0.5 seconds`, `1 second`.
enum DurationText {
    static func seconds(_ duration: Duration) -> String {
        let value = duration.timeInterval
        let text = value == value.rounded() ? String(Int(value)) : String(format: "%.3g", value)
        return "\(text) second\(value == 1 ? "" : "s")"
    }
}

extension Duration {
    /// The duration in seconds, as Foundation and Dispatch take it.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
