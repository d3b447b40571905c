import Courier
import Foundation

@testable import MediaSearchCommand

/// What a run of mediasearch printed.
final class CapturedConsole: Sendable {
    private let output = Locked(("", ""))
    let width: Int
    let isTerminal: Bool

    init(width: Int = 100, isTerminal: Bool = false) {
        self.width = width
        self.isTerminal = isTerminal
    }

    var console: Console {
        Console(
            write: { text in self.output.withLock { $0.0 += text } },
            writeError: { text in self.output.withLock { $0.1 += text } },
            isTerminal: isTerminal, width: width
        )
    }

    var standardOutput: String { output.withLock { $0.0 } }
    var standardError: String { output.withLock { $0.1 } }
}

/// Runs mediasearch in-process.
func runMediaSearch(
    _ arguments: [String], environment: [String: String] = [:], transport: (any HTTPTransport)? = nil, width: Int = 100,
    isTerminal: Bool = false
) async -> (status: Int32, output: String, error: String) {
    let captured = CapturedConsole(width: width, isTerminal: isTerminal)
    let status = await MediaSearch.run(
        arguments, environment: environment, console: captured.console, transport: transport)
    return (status, captured.standardOutput, captured.standardError)
}
