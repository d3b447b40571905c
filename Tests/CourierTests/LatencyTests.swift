import Courier
import CourierTesting
import Foundation
import Testing

/// The assertions on wall-clock latency (cancellation within 100 ms, sub-second deadlines).
///
/// `scripts/test` runs these suites on their own, one test at a time, after the rest: run beside
/// a hundred other tests on two cores they would measure the test runner's load, not Courier.
@Suite("Latency", .serialized)
struct LatencyTests {
    private func transport() -> URLSessionTransport {
        URLSessionTransport(sessionConfiguration: StubURLProtocol.sessionConfiguration())
    }

    private func uniqueHost(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8).lowercased()).test" }

    @Test("cancelling during the retry middleware's backoff sleep ends within 100 ms")
    func cancelDuringBackoff() async throws {
        let transport = StubTransport().on(.get, "*", .status(.serviceUnavailable, headers: [.retryAfter: "30"]))
        let retry = RetryMiddleware(policy: RetryPolicy(maximumRetryAfter: .seconds(60)))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [retry])

        let task = Task { try await client.send(.get("x", as: String.self)) }
        while transport.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(20))
        let start = ContinuousClock.now
        task.cancel()

        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .milliseconds(100))
        #expect(transport.requests.count == 1)
    }

    @Test("the handle cancels: the completion handler is called once, with .cancelled, promptly")
    func completionCancel() async throws {
        let transport = StubTransport().on(.get, "*", .json(samplePage).delayed(by: .seconds(10)))
        let client = APIClient(baseURL: baseURL, transport: transport)
        let start = ContinuousClock.now

        let result = await withCheckedContinuation { continuation in
            let handle = client.send(SearchSongs(term: "x"), queue: .global()) { continuation.resume(returning: $0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) { handle.cancel() }
        }

        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test("cancelling the task throws CancellationError promptly")
    func cancelAsync() async throws {
        let transport = StubTransport().on(.get, "*", .json(samplePage).delayed(by: .seconds(10)))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let task = Task { try await client.send(SearchSongs(term: "x")) }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .milliseconds(100))
    }

    @Test("the whole-exchange deadline works below one second")
    func subSecondDeadline() async throws {
        let host = uniqueHost("stall")
        StubURLProtocol.handle(host: host) { _ in .stall }
        let request = HTTPRequest(url: URL(string: "https://\(host)/")!, timeout: .milliseconds(300))
        let start = ContinuousClock.now

        let error = try #require(await #expect(throws: APIError.self) { try await transport().send(request) })

        let elapsed = ContinuousClock.now - start
        #expect(error.kind == .transport(.deadlineExceeded))
        #expect(error.description.contains("0.3 seconds"))
        #expect(elapsed >= .milliseconds(290) && elapsed < .seconds(1))
    }

    @Test("a call waiting for the client's slot fails at its 300 ms timeout, and a cancelled one leaves within 100 ms")
    func clientLimitWaits() async throws {
        let transport = StubTransport().on(.get, "*", .json("{}").delayed(by: .seconds(10)))
        let client = APIClient(baseURL: baseURL, transport: transport, maximumConcurrentRequests: 1)
        let holder = Task { try await client.send(.get("held", as: Data.self)) }
        for _ in 0..<1000 where transport.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }

        var start = ContinuousClock.now
        await #expect(throws: APIError.self) {
            try await client.send(Request(path: "waits", timeout: .milliseconds(300), as: Data.self))
        }
        #expect(ContinuousClock.now - start < .milliseconds(500))

        let waiter = Task { try await client.send(.get("cancelled", as: Data.self)) }
        for _ in 0..<1000 where client.admission?.counts.waiters != 1 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(client.admission?.counts.waiters == 1)
        start = ContinuousClock.now
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(ContinuousClock.now - start < .milliseconds(100))
        holder.cancel()
    }

    @Test("cancelling the task ends the exchange with CancellationError within 100 ms")
    func cancellation() async throws {
        let host = uniqueHost("cancel")
        StubURLProtocol.handle(host: host) { _ in .stall }
        let transport = transport()
        let task = Task { try await transport.send(HTTPRequest(url: URL(string: "https://\(host)/")!)) }
        try await Task.sleep(for: .milliseconds(100))

        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .milliseconds(100))
    }

}
