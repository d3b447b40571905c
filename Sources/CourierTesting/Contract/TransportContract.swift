import Courier
import Foundation

/// The checks every `HTTPTransport` must pass, shipped so a transport written outside Courier can
/// prove itself against the same tests `CurlTransport` and `URLSessionTransport` pass.
///
/// Each check starts a small HTTP/1.1 server on 127.0.0.1 in this process (no network, no server
/// to install), makes a transport with the closure you give, and sends it requests: status,
/// headers and body come back as sent; every method carries its body; redirects follow the
/// `RedirectPolicy` the transport was made with; a request's deadline and idle timeout end it
/// with the typed `TransportFailure`; a cancelled task ends at once with `CancellationError`;
/// large bodies arrive whole in both framings; a refused connection and a truncated body are
/// typed failures; concurrent exchanges do not mix.
///
/// Run every check as its own test, with Swift Testing:
///
/// ```swift
/// import CourierTesting
/// import Testing
///
/// @Test(arguments: TransportContract.Check.allCases)
/// func myTransportKeepsTheContract(_ check: TransportContract.Check) async throws {
///     let contract = TransportContract { settings in
///         MyTransport(redirects: settings.redirects)
///     }
///     try await contract.run(check)
/// }
/// ```
public struct TransportContract: Sendable {
    /// What the transport for a check must be made with.
    public struct Settings: Sendable {
        /// How the transport follows redirects (`RedirectPolicy/default` unless the check is
        /// about another policy).
        public var redirects: RedirectPolicy
    }

    /// One part of the contract.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Status, headers (a repeated one as separate fields or joined with commas, in order) and
        /// body come back as the server sent them; an error status is a response, not a thrown error.
        case statusHeadersAndBody
        /// GET, HEAD, POST, PUT, PATCH and DELETE reach the server with their headers and bodies.
        case methodsAndBodies
        /// Redirects follow the policy: a chain is followed and counted, 303 turns POST into GET
        /// without a body, 307 keeps both, too many fail with `TransportFailure/tooManyRedirects`,
        /// and `RedirectPolicy/never` returns the 3xx as it is.
        case redirects
        /// A request's `HTTPRequest/timeout` ends it with `TransportFailure/deadlineExceeded`;
        /// its `HTTPRequest/idleTimeout` with `TransportFailure/timedOut`.
        case timeouts
        /// A cancelled task ends its exchange at once with `CancellationError`, and the transport
        /// goes on serving other requests.
        case cancellation
        /// 8 MiB bodies arrive whole, with `Content-Length` or chunked; a 4 MiB request body is sent
        /// whole.
        case largeBodies
        /// A transport that streams bodies to a consumer hands over every byte (skipped by one
        /// that does not stream).
        case streaming
        /// A refused connection fails with `TransportFailure/cannotConnect`; a body cut short
        /// with `TransportFailure/connectionLost` or `TransportFailure/badResponse`.
        case connectionFailures
        /// 32 exchanges at once each get their own response.
        case concurrentExchanges

        /// The check's name.
        public var description: String { rawValue }
    }

    private let makeTransport: @Sendable (Settings) -> any HTTPTransport

    /// A contract for the transports `makeTransport` makes (one per check, or more when a check
    /// needs another redirect policy).
    public init(makeTransport: @escaping @Sendable (Settings) -> any HTTPTransport) {
        self.makeTransport = makeTransport
    }

    /// Runs one check against a fresh server.
    ///
    /// - Throws: ``ContractViolation`` saying what the transport did instead.
    public func run(_ check: Check) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let context = Context(
            check: check, base: server.baseURL, transport: makeTransport(Settings(redirects: .default)),
            makeTransport: makeTransport)
        switch check {
        case .statusHeadersAndBody: try await context.statusHeadersAndBody()
        case .methodsAndBodies: try await context.methodsAndBodies()
        case .redirects: try await context.redirects()
        case .timeouts: try await context.timeouts()
        case .cancellation: try await context.cancellation()
        case .largeBodies: try await context.largeBodies()
        case .streaming: try await context.streaming()
        case .connectionFailures: try await context.connectionFailures()
        case .concurrentExchanges: try await context.concurrentExchanges()
        }
    }

    /// Runs every check, each against a fresh server.
    ///
    /// - Throws: ``ContractViolation`` listing every check that failed.
    public func runAll() async throws {
        var failures: [String] = []
        for check in Check.allCases {
            do {
                try await run(check)
            } catch {
                failures.append("\(error)")
            }
        }
        if !failures.isEmpty {
            throw ContractViolation(check: "all", failures.joined(separator: "\n"))
        }
    }
}

/// What a transport did that the contract does not allow.
public struct ContractViolation: Error, Sendable, CustomStringConvertible {
    /// The check that failed.
    public let check: String
    /// What was expected and what happened instead.
    public let message: String

    /// A violation of `check`.
    public init(check: String, _ message: String) {
        self.check = check
        self.message = message
    }

    /// `check: message`.
    public var description: String { "\(check): \(message)" }
}
