import Courier
import CourierTesting
import Foundation
import Testing

/// A wall clock the test moves by hand.
private final class TestTime: Sendable {
    private let now = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var date: Date { now.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { now.withLock { $0.addTimeInterval(seconds) } }
}

@Suite("Response cache")
struct ResponseCacheMiddlewareTests {
    private let time = TestTime()

    private func client(
        _ transport: StubTransport,
        cache: ResponseCache = ResponseCache(),
        policy: CachePolicy = .default
    ) -> APIClient {
        let middleware = ResponseCacheMiddleware(cache: cache, policy: policy, now: { [time] in time.date })
        return APIClient(baseURL: baseURL, transport: transport, middlewares: [middleware])
    }

    @Test("a fresh response (max-age) is served without the network until it goes stale")
    func maxAge() async throws {
        let transport = StubTransport().on(
            .get, "*", .text("v1", headers: [.cacheControl: "public, max-age=60"]), .text("v2")
        )
        let client = client(transport)

        let first = try await client.response(for: .get("config", as: String.self))
        time.advance(59)
        let second = try await client.response(for: .get("config", as: String.self))
        time.advance(2)
        let third = try await client.send(.get("config", as: String.self))

        #expect([first.value, second.value, third] == ["v1", "v1", "v2"])
        #expect(second.attempts == 0)
        #expect(transport.requests.count == 2)
    }

    @Test("a stale response with an ETag is revalidated; a 304 hands back the stored body and restarts its age")
    func eTagRevalidation() async throws {
        let transport = StubTransport().on(.get, "*") { request in
            request.headers[.ifNoneMatch] == #""abc""#
                ? .status(.notModified, headers: [.eTag: #""abc""#, .cacheControl: "max-age=30"])
                : .text("body", headers: [.eTag: #""abc""#, .cacheControl: "no-cache"])
        }
        let client = client(transport)

        _ = try await client.send(.get("doc", as: String.self))
        let revalidated = try await client.response(for: .get("doc", as: String.self))
        let fresh = try await client.response(for: .get("doc", as: String.self))

        #expect(revalidated.value == "body" && revalidated.response.status == .ok)
        #expect(revalidated.response.headers[.cacheControl] == "max-age=30")
        #expect(transport.requests.map { $0.headers[.ifNoneMatch] } == [nil, #""abc""#])
        #expect(fresh.value == "body" && fresh.attempts == 0)
    }

    @Test("Last-Modified is revalidated with If-Modified-Since")
    func lastModified() async throws {
        let stamp = "Wed, 21 Oct 2015 07:28:00 GMT"
        let transport = StubTransport().on(.get, "*") { request in
            request.headers[.ifModifiedSince] == stamp
                ? .status(.notModified) : .text("page", headers: [.lastModified: stamp])
        }
        let client = client(transport)

        _ = try await client.send(.get("page", as: String.self))
        // Past its heuristic lifetime (10% of the time since Last-Modified, at most a day).
        time.advance(2 * 86_400)
        let second = try await client.send(.get("page", as: String.self))

        #expect(second == "page")
        #expect(transport.requests.last?.headers[.ifModifiedSince] == stamp)
    }

    @Test("no-store is never stored; a response without freshness or validators is not stored")
    func notStored() async throws {
        for headers: HTTPHeaders in [[.cacheControl: "no-store, max-age=60"], [:]] {
            let transport = StubTransport().on(.get, "*", .text("x", headers: headers))
            let client = client(transport)
            _ = try await client.send(.get("a", as: String.self))
            _ = try await client.send(.get("a", as: String.self))
            #expect(transport.requests.count == 2, "\(headers)")
            #expect(transport.requests.allSatisfy { $0.headers[.ifNoneMatch] == nil })
        }
    }

    @Test("private responses are stored by a private cache, not by a shared one; s-maxage wins when shared")
    func privateAndShared() async throws {
        for (shared, expected) in [(false, 1), (true, 2)] {
            let transport = StubTransport().on(.get, "*", .text("x", headers: [.cacheControl: "private, max-age=60"]))
            let cache = try ResponseCache(configuration: .init(isShared: shared))
            let client = client(transport, cache: cache)
            _ = try await client.send(.get("a", as: String.self))
            _ = try await client.send(.get("a", as: String.self))
            #expect(transport.requests.count == expected)
        }
        let transport = StubTransport().on(.get, "*", .text("x", headers: [.cacheControl: "max-age=600, s-maxage=5"]))
        let client = client(transport, cache: try ResponseCache(configuration: .init(isShared: true)))
        _ = try await client.send(.get("b", as: String.self))
        time.advance(10)
        _ = try await client.send(.get("b", as: String.self))
        #expect(transport.requests.count == 2)
    }

    @Test("Expires is honoured relative to the server's Date")
    func expires() async throws {
        let transport = StubTransport().on(
            .get, "*",
            .text(
                "x",
                headers: ["Date": "Tue, 14 Nov 2023 22:13:20 GMT", "Expires": "Tue, 14 Nov 2023 22:14:20 GMT"]
            )
        )
        let client = client(transport)

        _ = try await client.send(.get("a", as: String.self))
        time.advance(30)
        _ = try await client.send(.get("a", as: String.self))
        time.advance(31)
        _ = try await client.send(.get("a", as: String.self))

        #expect(transport.requests.count == 2)
    }

    @Test("responses to authenticated requests are not stored unless the route opts in, and then per credential")
    func authenticated() async throws {
        let transport = StubTransport().on(.get, "*") { request in
            .text(request.headers[.authorization] ?? "anonymous", headers: [.cacheControl: "max-age=60"])
        }
        let client = client(transport)
        let alice = Request.get("me", headers: [.authorization: "Bearer alice"], as: String.self)
        let bob = Request.get("me", headers: [.authorization: "Bearer bob"], as: String.self)

        _ = try await client.send(alice)
        _ = try await client.send(alice)
        #expect(transport.requests.count == 2)

        let optIn = CachePolicy(storesAuthenticatedResponses: true)
        let aliceFirst = try await client.send(alice.policies(cache: optIn))
        let aliceAgain = try await client.send(alice.policies(cache: optIn))
        let bobFirst = try await client.send(bob.policies(cache: optIn))
        #expect([aliceFirst, aliceAgain, bobFirst] == ["Bearer alice", "Bearer alice", "Bearer bob"])
        #expect(transport.requests.count == 4)

        let keyed = StubTransport().on(.get, "*", .text("movies", headers: [.cacheControl: "max-age=60"]))
        let tmdb = self.client(keyed)
        _ = try await tmdb.send(.get("popular", query: ["api_key": "k3y"], as: String.self))
        _ = try await tmdb.send(.get("popular", query: ["api_key": "k3y"], as: String.self))
        #expect(keyed.requests.count == 2)
    }

    @Test("a route's time to live replaces the headers' freshness, and .noStore bypasses the cache")
    func routePolicies() async throws {
        let transport = StubTransport().on(.get, "*", .text("x", headers: [.cacheControl: "no-cache"]))
        let client = client(transport)
        let configuration = Request.get("configuration", as: String.self).policies(cache: .timeToLive(.seconds(300)))

        _ = try await client.send(configuration)
        time.advance(299)
        _ = try await client.send(configuration)
        #expect(transport.requests.count == 1)

        let live = Request.get("configuration", as: String.self).policies(cache: .noStore)
        _ = try await client.send(live)
        #expect(transport.requests.count == 2)
    }

    @Test("Vary: a different Accept-Language is a miss; Vary: * is never stored")
    func vary() async throws {
        let transport = StubTransport().on(.get, "*") { request in
            .text(
                request.headers[.acceptLanguage] ?? "-",
                headers: [
                    .cacheControl: "max-age=60", "Vary": request.url.path.hasSuffix("star") ? "*" : "Accept-Language",
                ]
            )
        }
        let client = client(transport)

        let english = try await client.send(.get("greeting", headers: [.acceptLanguage: "en"], as: String.self))
        let french = try await client.send(.get("greeting", headers: [.acceptLanguage: "fr"], as: String.self))
        let frenchAgain = try await client.send(.get("greeting", headers: [.acceptLanguage: "fr"], as: String.self))
        _ = try await client.send(.get("star", as: String.self))
        _ = try await client.send(.get("star", as: String.self))

        #expect([english, french, frenchAgain] == ["en", "fr", "fr"])
        #expect(transport.requests.count == 4)
    }

    @Test("a successful POST to a URL forgets its stored GET")
    func unsafeInvalidates() async throws {
        let transport = StubTransport()
            .on(.get, "*", .text("old", headers: [.cacheControl: "max-age=60"]), .text("new"))
            .on(.post, "*", .status(.noContent))
        let client = client(transport)

        _ = try await client.send(.get("notes", as: String.self))
        _ = try await client.send(Request(method: .post, path: "notes", body: .text("x"), as: EmptyResponse.self))
        let after = try await client.send(.get("notes", as: String.self))

        #expect(after == "new")
    }

    @Test("a request's own no-cache skips the stored response; its own conditional headers pass through")
    func requestDirectives() async throws {
        let transport = StubTransport().on(
            .get, "*", .text("x", headers: [.cacheControl: "max-age=60", .eTag: "\"1\""]))
        let client = client(transport)

        _ = try await client.send(.get("a", as: String.self))
        _ = try await client.send(.get("a", headers: [.cacheControl: "no-cache"], as: String.self))
        _ = try await client.send(.get("a", headers: [.ifNoneMatch: "\"0\""], as: String.self))

        #expect(transport.requests.count == 3)
        #expect(transport.requests[1].headers[.ifNoneMatch] == "\"1\"")
        #expect(transport.requests[2].headers[.ifNoneMatch] == "\"0\"")
    }

    @Test("the memory tier keeps at most its count, least recently used evicted first")
    func memoryLimit() async throws {
        let transport = StubTransport().on(.get, "*", .text("x", headers: [.cacheControl: "max-age=60"]))
        let cache = ResponseCache(memoryCountLimit: 2)
        let client = client(transport, cache: cache)

        for path in ["a", "b", "a", "c", "a", "b"] {
            _ = try await client.send(.get(Path(stringLiteral: path), as: String.self))
        }

        #expect(transport.requests.map(\.url.lastPathComponent) == ["a", "b", "c", "b"])
        #expect(cache.memoryCount == 2)
    }

    @Test("the disk tier survives a new cache; a corrupt entry is a miss and is removed")
    func diskTier() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = StubTransport().on(
            .get, "*", .text("stored", headers: [.cacheControl: "max-age=60"]), .text("refetched"))

        _ = try await client(transport, cache: try ResponseCache(configuration: .init(directory: directory)))
            .send(.get("a", as: String.self))
        let restarted = try await client(
            transport, cache: try ResponseCache(configuration: .init(directory: directory))
        )
        .response(for: .get("a", as: String.self))
        #expect(restarted.value == "stored" && restarted.attempts == 0)

        let file = try #require(
            try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).first)
        try Data("CRC1garbage".utf8).write(to: file)
        let afterCorruption = try await client(
            transport, cache: try ResponseCache(configuration: .init(directory: directory))
        )
        .send(.get("a", as: String.self))
        #expect(afterCorruption == "refetched")
        #expect(transport.requests.count == 2)
    }
}
