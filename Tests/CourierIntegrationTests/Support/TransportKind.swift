import Courier
import Foundation
import Testing

/// The transports the contract suites run against: every integration test that reaches a real
/// server takes one of these as an argument, so both transports meet the same expectations.
/// `curlLoops` is CurlTransport with three loops (requests spread across them, each with its own
/// connections), where the default on a two-core machine is one.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case curl
    case curlLoops

    /// URLSession and CurlTransport as configured by default: for the suites too heavy to run
    /// three times (1 GiB bodies).
    static let defaults: [TransportKind] = [.urlSession, .curl]

    var testDescription: String { rawValue }

    /// Whether this is a CurlTransport, with one loop or several.
    var isCurl: Bool { self != .urlSession }

    /// A new transport of this kind with the settings both share.
    func make(
        timeout: Duration = .seconds(60),
        redirects: RedirectPolicy = .default,
        maximumResponseSize: Int = 100 * 1024 * 1024
    ) -> any HTTPTransport {
        switch self {
        case .urlSession:
            URLSessionTransport(
                configuration: .init(timeout: timeout, redirects: redirects, maximumResponseSize: maximumResponseSize))
        case .curl:
            CurlTransport(
                configuration: .init(timeout: timeout, redirects: redirects, maximumResponseSize: maximumResponseSize))
        case .curlLoops:
            CurlTransport(
                configuration: .init(
                    timeout: timeout, redirects: redirects, maximumResponseSize: maximumResponseSize, loops: 3))
        }
    }

    /// Whether the transport pauses the network for a stream's slow reader: libcurl does, and so
    /// does URLSession on Apple platforms; FoundationNetworking restarts a suspended task instead.
    var pausesStreams: Bool {
        #if canImport(FoundationNetworking)
            isCurl
        #else
            true
        #endif
    }

    /// A client on `baseURL` over a new transport of this kind.
    func client(_ baseURL: URL?, middlewares: [any Middleware] = []) -> APIClient {
        APIClient(baseURL: baseURL ?? URL(string: "http://127.0.0.1:9")!, transport: make(), middlewares: middlewares)
    }
}
