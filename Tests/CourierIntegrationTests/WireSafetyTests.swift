import Courier
import Foundation
import Testing

/// What a transport puts on the wire when it is called directly, without the client's checks: the
/// method asked for or a refusal before any I/O, never a header split by CR/LF, never a scheme
/// other than http and https.
@Suite(
    "What reaches the wire",
    .enabled(if: LocalServers.httpbin != nil && LocalServers.faults != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct WireSafetyTests {
    private struct Echo: Decodable {
        let method: String
        let data: String
    }

    private struct Count: Decodable { let count: Int }

    /// How many requests the fault server saw with `key` in their query.
    private func count(_ key: String) async throws -> Int {
        let client = APIClient(baseURL: try #require(LocalServers.faults), transport: CurlTransport())
        return try await client.send(.get("count", query: ["key": key], as: Count.self)).count
    }

    private func anything(_ method: HTTPMethod) throws -> HTTPRequest {
        HTTPRequest(
            method: method, url: try #require(LocalServers.httpbin).appending(path: "anything"),
            headers: [.contentType: "text/plain"], body: .data(Data("hello".utf8)))
    }

    @Test("CurlTransport sends a GET with a body as a GET, body included")
    func curlGetWithBody() async throws {
        let response = try await CurlTransport().send(try anything(.get))

        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.method == "GET")
        #expect(echo.data == "hello")
    }

    @Test("URLSessionTransport refuses a GET with a body before any I/O")
    func urlSessionGetWithBody() async throws {
        let key = "get-body-\(UUID())"
        var request = try anything(.get)
        request.url = try #require(LocalServers.faults).appending(path: "ok").appending(queryItems: [
            .init(name: "key", value: key)
        ])

        let error = await #expect(throws: APIError.self) { try await URLSessionTransport().send(request) }

        #expect(error?.kind == .invalidRequest)
        #expect(error?.description.contains("GET request with a body") == true)
        #expect(try await count(key) == 0)
    }

    @Test("a body on DELETE, POST, PUT and PATCH goes out with the method asked for", arguments: TransportKind.allCases)
    func otherMethodsWithBody(kind: TransportKind) async throws {
        for method in [HTTPMethod.delete, .post, .put, .patch] {
            let response = try await kind.make().send(try anything(method))

            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.method == method.rawValue)
            #expect(echo.data == "hello")
        }
    }

    @Test("a HEAD with a body is refused before any I/O", arguments: TransportKind.allCases)
    func headWithBody(kind: TransportKind) async throws {
        let key = "head-body-\(UUID())"
        let url = try #require(LocalServers.faults).appending(path: "ok").appending(queryItems: [
            .init(name: "key", value: key)
        ])
        let request = HTTPRequest(method: .head, url: url, body: .data(Data("x".utf8)))

        let error = await #expect(throws: APIError.self) { try await kind.make().send(request) }

        #expect(error?.kind == .invalidRequest)
        #expect(try await count(key) == 0)
    }

    @Test(
        "a header value with CR/LF or another control character, or a Transfer-Encoding, is refused by a transport called directly",
        arguments: TransportKind.allCases)
    func headerInjection(kind: TransportKind) async throws {
        let headers: [HTTPHeaders] = [
            ["X-Note": "a\r\nX-Injected: yes"], ["X-Note": "bell\u{7}"], ["X-Note": "vt\u{B}"], ["X-Note": "del\u{7F}"],
            ["Last-Event-ID": "4\u{1}"], ["Transfer-Encoding": "chunked"],
        ]
        for header in headers {
            let key = "crlf-\(UUID())"
            let url = try #require(LocalServers.faults).appending(path: "echo").appending(queryItems: [
                .init(name: "key", value: key)
            ])
            let request = HTTPRequest(url: url, headers: header)

            let error = await #expect(throws: APIError.self, "\(header)") { try await kind.make().send(request) }

            #expect(error?.kind == .invalidRequest, "\(header)")
            #expect(try await count(key) == 0, "\(header) went out")
        }
    }

    @Test(
        "file, dict, ftp and gopher URLs are refused by a transport called directly",
        arguments: TransportKind.allCases,
        ["file:///etc/passwd", "dict://127.0.0.1:9/d:x", "ftp://127.0.0.1:9/x", "gopher://127.0.0.1:9/"])
    func otherSchemes(kind: TransportKind, url: String) async throws {
        let request = HTTPRequest(url: try #require(URL(string: url)))

        let error = await #expect(throws: APIError.self) { try await kind.make().send(request) }

        #expect(error?.kind == .invalidRequest)
    }
}
