import Courier
import CourierTesting
import Foundation
import Testing

/// Appends its name to a header on the way out and to a response header on the way back.
private struct Tagging: Middleware {
    let name: String
    func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var request = request
        request.headers.add("X-Out", name)
        var response = try await next(request)
        response.headers.add("X-Back", name)
        return response
    }
}

/// Answers without calling `next`.
private struct Answering: Middleware {
    func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        HTTPResponse(status: .ok, body: Data(#"{"resultCount": 0, "results": []}"#.utf8))
    }
}

/// Calls `next` again while the status is 503, up to `attempts` times.
private struct Repeating: Middleware {
    let attempts: Int
    func intercept(
        _ request: HTTPRequest,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var response = try await next(request)
        var count = 1
        while response.status == .serviceUnavailable && count < attempts {
            response = try await next(request)
            count += 1
        }
        return response
    }
}

@Suite("Middleware chain")
struct MiddlewareChainTests {
    @Test("array order on the way out, reverse order on the way back")
    func order() async throws {
        let transport = StubTransport().on(.get, "*", .text("ok"))
        let client = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [Tagging(name: "1"), Tagging(name: "2"), Tagging(name: "3")]
        )

        let result = try await client.response(for: .get("x", as: String.self))

        #expect(transport.requests.first?.headers.values(for: "X-Out") == ["1", "2", "3"])
        #expect(result.response.headers.values(for: "X-Back") == ["3", "2", "1"])
        #expect(result.request.headers.values(for: "X-Out") == ["1", "2", "3"])
    }

    @Test("a middleware may answer without calling next")
    func zeroCalls() async throws {
        let transport = StubTransport()
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [Answering()])

        let result = try await client.response(for: SearchSongs(term: "x"))

        #expect(result.value.resultCount == 0)
        #expect(result.attempts == 0)
        #expect(transport.requests.isEmpty)
    }

    @Test("a middleware may call next several times; attempts are counted")
    func severalCalls() async throws {
        let transport = StubTransport().on(
            .get, "*", .status(.serviceUnavailable), .status(.serviceUnavailable), .json(samplePage))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [Repeating(attempts: 5)])

        let result = try await client.response(for: SearchSongs(term: "x"))

        #expect(result.value == samplePage)
        #expect(result.attempts == 3)
        #expect(transport.requests.count == 3)
    }

    @Test("the final status is validated after the middlewares")
    func statusAfterChain() async throws {
        let transport = StubTransport().on(.get, "*", .status(.serviceUnavailable))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [Repeating(attempts: 2)])

        let error = try #require(await #expect(throws: APIError.self) { try await client.send(SearchSongs(term: "x")) })

        #expect(error.kind == .unacceptableStatus(.serviceUnavailable))
        #expect(transport.requests.count == 2)
    }
}
