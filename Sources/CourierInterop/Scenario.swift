import Courier
import Foundation

/// What one scenario on one server and transport came to.
enum Outcome {
    /// Passed, with what was seen.
    case passed(String)
    case failed(String)
    /// Not run: the transport or the server cannot do it (said why).
    case unsupported(String)

    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

/// A scenario's failure: what was expected and what came.
struct ScenarioFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A scenario that cannot run here, and why.
struct Unsupported: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// One row of the matrix.
struct Row {
    let server: String
    let version: String
    let protocolName: String
    let transport: String
    let scenario: String
    let outcome: Outcome
    /// How the result was checked.
    let check: String
}

/// The transports of the matrix.
enum TransportKind: String, CaseIterable {
    case curl = "CurlTransport"
    case urlSession = "URLSessionTransport"
}

/// Fails the scenario with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ScenarioFailure(message()) }
}

/// A few words about a response, for a failure's message.
func describe(_ response: HTTPResponse) -> String {
    "status \(response.status.code), \(response.body.count) bytes"
}
