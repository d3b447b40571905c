import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("StubTransport")
struct StubTransportTests {
    private func request(_ method: HTTPMethod = .get, _ path: String) -> HTTPRequest {
        HTTPRequest(method: method, url: URL(string: "https://example.com\(path)?q=1")!)
    }

    @Test("rules match by method and path, first rule first")
    func matching() async throws {
        let transport = StubTransport()
            .on(.get, "/a", .text("get a"))
            .on(.post, "/a", .text("post a"))
            .on(.get, "*", .text("any"))

        #expect(try await transport.send(request(.get, "/a")).body == Data("get a".utf8))
        #expect(try await transport.send(request(.post, "/a")).body == Data("post a".utf8))
        #expect(try await transport.send(request(.get, "/b")).body == Data("any".utf8))
        #expect(transport.requests.count == 3)
        #expect(transport.requests(to: "/a").count == 2)
    }

    @Test("several responses are given in turn, then the last repeats")
    func sequence() async throws {
        let transport = StubTransport().on(.get, "/x", .status(500), .status(502), .status(200))
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await transport.send(request(.get, "/x")).status.code) }
        #expect(statuses == [500, 502, 200, 200, 200])
    }

    @Test("closure rules see the request")
    func closures() async throws {
        let transport = StubTransport()
            .on("has q", where: { $0.url.query == "q=1" }, .text("matched"))
            .on(.get, "/echo") { request in .text(request.url.path) }

        #expect(try await transport.send(request(.get, "/anything")).body == Data("matched".utf8))
        let echo = HTTPRequest(url: URL(string: "https://example.com/echo")!)
        #expect(try await transport.send(echo).body == Data("/echo".utf8))
    }

    @Test("errors are thrown as given")
    func failures() async throws {
        let transport = StubTransport().on(.get, "*", .failure(URLError(.timedOut)))
        await #expect(throws: URLError.self) { try await transport.send(request(.get, "/x")) }
    }

    @Test("an unmatched request names itself and the rules")
    func unmatched() async throws {
        let transport = StubTransport().on(.get, "/a", .text(""))
        let error = try #require(
            await #expect(throws: StubTransport.UnmatchedRequest.self) {
                try await transport.send(request(.delete, "/b"))
            })
        #expect(error.description.contains("DELETE https://example.com/b?q=1"))
        #expect(error.description.contains("GET /a"))
    }

    @Test("a JSON body that cannot be encoded fails the request instead of crashing")
    func unencodable() async throws {
        let transport = StubTransport().on(.get, "*", .json(["x": Double.infinity]))
        await #expect(throws: EncodingError.self) { try await transport.send(request(.get, "/x")) }
    }
}
