import Courier
import CourierTesting
import Foundation
import Testing

/// The contract shipped in CourierTesting, against Courier's own transports: CurlTransport with one
/// loop and with three (requests spread across loops, each with its share of the limits), and
/// URLSessionTransport. No test servers needed: each check starts its own in-process server.
@Suite("Transport contract", .timeLimit(.minutes(3)))
struct TransportContractTests {
    @Test(
        "CurlTransport, one loop", .enabled(if: CurlTransport.isAvailable), arguments: TransportContract.Check.allCases)
    func curlOneLoop(_ check: TransportContract.Check) async throws {
        try await TransportContract { settings in
            CurlTransport(configuration: .init(redirects: settings.redirects, loops: 1))
        }.run(check)
    }

    @Test(
        "CurlTransport, three loops", .enabled(if: CurlTransport.isAvailable),
        arguments: TransportContract.Check.allCases)
    func curlThreeLoops(_ check: TransportContract.Check) async throws {
        try await TransportContract { settings in
            CurlTransport(configuration: .init(redirects: settings.redirects, loops: 3))
        }.run(check)
    }

    @Test("URLSessionTransport", arguments: TransportContract.Check.allCases)
    func urlSession(_ check: TransportContract.Check) async throws {
        try await TransportContract { settings in
            URLSessionTransport(configuration: .init(redirects: settings.redirects))
        }.run(check)
    }

    @Test("a transport that breaks the contract is caught: one that ignores deadlines and redirects")
    func brokenTransportFails() async throws {
        let contract = TransportContract { _ in CarelessTransport() }
        await #expect(throws: ContractViolation.self) { try await contract.run(.timeouts) }
        await #expect(throws: ContractViolation.self) { try await contract.run(.redirects) }
    }
}

/// A transport that drops the request's deadline and follows no redirect: what the contract exists
/// to catch.
private struct CarelessTransport: HTTPTransport {
    let inner = CurlTransport(configuration: .init(redirects: .never, loops: 1))

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var careless = request
        careless.timeout = .seconds(60)
        careless.idleTimeout = .seconds(60)
        return try await inner.send(careless)
    }
}
