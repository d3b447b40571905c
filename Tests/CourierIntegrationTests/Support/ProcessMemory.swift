import Foundation

/// The process's resident memory, from `/proc/self/status` (Linux only).
enum ProcessMemory {
    /// Whether peak memory can be measured here.
    static var isAvailable: Bool { FileManager.default.isReadableFile(atPath: "/proc/self/status") }

    /// Resets the peak (`VmHWM`) to the current resident size; `false` when the kernel refused.
    @discardableResult
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// The peak resident size since the last reset, in bytes.
    static func peakBytes() -> Int? { field("VmHWM") }

    /// The current resident size, in bytes.
    static func residentBytes() -> Int? { field("VmRSS") }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.split(separator: " ").dropFirst().first { Int($0) != nil }
            return number.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
