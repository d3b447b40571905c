import Courier
import Foundation

/// A one-line progress bar drawn on a terminal: `[██████░░░░░░░░░░] 38%  104 KB of 270 KB`.
///
/// `@unchecked Sendable`: `lastDrawn` is only touched under `lock`.
final class ProgressBar: @unchecked Sendable {
    private let console: Console
    private let lock = NSLock()
    private var lastDrawn: (percent: Int, bytes: Int64)?
    private var drewAnything = false

    init(console: Console) {
        self.console = console
    }

    func update(_ progress: DownloadProgress) {
        let percent = progress.fractionCompleted.map { Int($0 * 100) } ?? -1
        lock.lock()
        defer { lock.unlock() }
        // Redraw when the percentage moves, or every 64 KB when the size is unknown.
        if let last = lastDrawn, percent == last.percent, percent >= 0 || progress.bytesReceived - last.bytes < 65_536 {
            return
        }
        lastDrawn = (percent, progress.bytesReceived)
        drewAnything = true
        let width = 24
        let filled = percent < 0 ? 0 : percent * width / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let amount =
            Self.kilobytes(progress.bytesReceived) + (progress.bytesExpected.map { " of \(Self.kilobytes($0))" } ?? "")
        let share = percent < 0 ? "" : " \(percent)%"
        console.write("\r[\(bar)]\(share)  \(amount)\u{1B}[K")
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drewAnything { console.write("\r\u{1B}[K") }
    }

    private static func kilobytes(_ bytes: Int64) -> String {
        bytes < 10_240 ? "\(bytes) B" : "\(bytes / 1024) KB"
    }
}
