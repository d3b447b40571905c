import Courier
import CourierTesting
import Foundation
import Testing

/// Answers every request with a redirect count, as a transport that followed redirects would.
private struct RedirectingTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(status: .ok, body: Data("0123456789".utf8), url: request.url, redirectCount: 2)
    }
}

@Suite("Metrics")
struct MetricsMiddlewareTests {
    @Test("the response carries start, duration, attempts, redirects, bytes and status")
    func onResponse() async throws {
        let before = Date()
        let client = APIClient(baseURL: baseURL, transport: RedirectingTransport())

        let result = try await client.response(for: .post("notes", body: ["text": "hello"], as: Data.self))

        let metrics = result.metrics
        #expect(metrics.attempts == 1 && metrics.redirects == 2)
        #expect(metrics.bytesSent == Int64(#"{"text":"hello"}"#.utf8.count))
        #expect(metrics.bytesReceived == 10)
        #expect(metrics.status == .ok)
        #expect(metrics.startDate >= before && metrics.endDate <= Date())
        #expect(metrics.duration > .zero)
    }

    @Test("the observer sees every call, retries counted, failures with their error")
    func observer() async throws {
        let seen = Locked<[RequestMetrics]>([])
        let metrics = MetricsMiddleware { metrics in seen.withLock { $0.append(metrics) } }
        let retry = RetryMiddleware(clock: ManualClock().retryClock())
        let transport = StubTransport()
            .on(.get, "v1/flaky", .status(.serviceUnavailable), .text("ok"))
            .on(.get, "v1/down", .failure(URLError(.badServerResponse)))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [metrics, retry])

        _ = try await client.send(.get("flaky", as: String.self))
        _ = try? await client.send(.get("down", as: String.self))

        let reported = seen.withLock { $0 }
        #expect(reported.count == 2)
        #expect(reported[0].attempts == 2 && reported[0].status == .ok && reported[0].bytesReceived == 2)
        #expect(reported[1].attempts == 1 && reported[1].status == nil)
        #expect((reported[1].error as? APIError)?.kind == .transport(.badResponse))
        #expect(reported[1].request.url.path == "/v1/down")
    }

    @Test("used outside APIClient, the observer still counts what passed through it")
    func outsideClient() async throws {
        let seen = Locked<[RequestMetrics]>([])
        let metrics = MetricsMiddleware { metrics in seen.withLock { $0.append(metrics) } }
        let request = HTTPRequest(url: URL(string: "https://a.example/x")!, body: .data(Data(count: 3)))

        _ = try await metrics.intercept(request) { _ in HTTPResponse(status: .created, body: Data(count: 7)) }

        let reported = try #require(seen.withLock { $0.first })
        #expect(reported.attempts == 1 && reported.bytesSent == 3 && reported.bytesReceived == 7)
        #expect(reported.status == .created)
    }
}
