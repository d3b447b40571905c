import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where mediasearch writes, and what it knows about the terminal.
public struct Console: Sendable {
    /// Writes to standard output.
    public var write: @Sendable (String) -> Void
    /// Writes to standard error.
    public var writeError: @Sendable (String) -> Void
    /// Whether standard output is a terminal (then progress is drawn).
    public var isTerminal: Bool
    /// How many columns tables may use.
    public var width: Int

    /// Creates a console.
    public init(
        write: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        isTerminal: Bool,
        width: Int
    ) {
        self.write = write
        self.writeError = writeError
        self.isTerminal = isTerminal
        self.width = width
    }

    /// The process's standard output and error; the width from the terminal, else `COLUMNS`, else 100.
    public static func standard(environment: [String: String]) -> Console {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        var size = winsize()
        let measured = isTerminal && ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 ? Int(size.ws_col) : 0
        let width = measured > 0 ? measured : environment["COLUMNS"].flatMap(Int.init) ?? 100
        return Console(
            write: { FileHandle.standardOutput.write(Data($0.utf8)) },
            writeError: { FileHandle.standardError.write(Data($0.utf8)) },
            isTerminal: isTerminal,
            width: max(40, width)
        )
    }
}
