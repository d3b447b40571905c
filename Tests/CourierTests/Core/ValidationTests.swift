import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Validation before I/O")
struct ValidationTests {
    @Test(
        "header names and values with CR, LF, NUL or another control character are refused, and framing headers",
        arguments: [
            ("X-Ok", "a\r\nX-Injected: 1"), ("X-Ok", "line\nbreak"), ("X-Ok", "nul\u{0}byte"), ("X-Bad\r\nName", "v"),
            ("Bad Name", "v"), ("", "v"), ("X-Colon:", "v"), ("X-Ok", "start\u{1}"), ("X-Ok", "vertical\u{B}tab"),
            ("X-Ok", "del\u{7F}"), ("X-Ok", "escape\u{1B}[31m"), ("X-Ok", "\u{1F}"), ("X-Ok", "form\u{C}feed"),
            ("Last-Event-ID", "7\u{1}"), ("Transfer-Encoding", "chunked"), ("transfer-encoding", "gzip, chunked"),
        ])
    func badHeaders(name: String, value: String) async throws {
        let transport = StubTransport().on(.get, "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(path: "x", headers: [.init(name): value], as: Data.self))
            }
        )

        #expect(error.kind == .invalidRequest)
        #expect(transport.requests.isEmpty)
    }

    @Test("a header added by a middleware is validated too")
    func middlewareHeaders() async throws {
        struct Injecting: Middleware {
            func intercept(
                _ request: HTTPRequest,
                next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
            ) async throws -> HTTPResponse {
                var request = request
                request.headers["X-Trace"] = "1\r\nHost: evil"
                return try await next(request)
            }
        }
        let transport = StubTransport().on(.get, "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [Injecting()])

        let error = try #require(
            await #expect(throws: APIError.self) { try await client.send(.get("x", as: Data.self)) })

        #expect(error.kind == .invalidRequest)
        #expect(transport.requests.isEmpty)
    }

    @Test(
        "methods that are not tokens are refused; custom tokens are sent",
        arguments: [
            ("GET / HTTP/1.1\r\n", false), ("", false), ("GE T", false), ("PURGE", true), ("M-SEARCH", true),
        ])
    func methods(raw: String, valid: Bool) async throws {
        let transport = StubTransport().on(HTTPMethod(rawValue: raw), "*", .text(""))
        let client = APIClient(baseURL: baseURL, transport: transport)

        let result = await Result {
            try await client.send(Request(method: HTTPMethod(rawValue: raw), path: "x", as: Data.self))
        }

        if valid {
            _ = try result.get()
            #expect(transport.requests.first?.method.rawValue == raw)
        } else {
            #expect(throws: APIError.self) { try result.get() }
            #expect(transport.requests.isEmpty)
        }
    }
}
