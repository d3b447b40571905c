import CourierTesting
import Foundation
import Testing

@testable import Courier

/// What a request may ask of the cache: its own `Cache-Control` directives (RFC 9111 §5.2.1) and
/// the per-route modes (``CachePolicy/Mode``), `Vary` (§4.1) and heuristic freshness (§4.2.2).
@Suite("Response cache: request directives, modes, Vary, heuristics")
struct CacheRequestControlTests {
    private let clock = CacheTestClock()

    /// A transport answering `v1`, `v2`, … with `headers`, counting.
    private func counting(_ headers: HTTPHeaders) -> StubTransport {
        let count = Locked(0)
        return StubTransport().on(.get, "*") { _ in
            let n = count.withLock {
                $0 += 1
                return $0
            }
            return .text("v\(n)", headers: headers)
        }
    }

    /// The status `client` answers `request` with, a non-2xx one included.
    private func status(_ client: APIClient, _ request: Request<String>) async throws -> HTTPStatus? {
        do {
            return try await client.response(for: request).response.status
        } catch let error as APIError {
            return error.response?.status
        }
    }

    private func get(_ control: String? = nil) -> Request<String> {
        .get("a", headers: control.map { [.cacheControl: $0] } ?? [:], as: String.self)
    }

    @Test("request max-age: an older stored response goes to the network (item 7)")
    func requestMaxAge() async throws {
        let transport = counting([.cacheControl: "max-age=600"])
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(get())
        clock.advance(10)
        let young = try await client.send(get("max-age=20"))
        let old = try await client.send(get("max-age=5"))
        #expect([young, old] == ["v1", "v2"])
    }

    @Test("request max-stale accepts a stale response within it, not past it, never with must-revalidate (item 7)")
    func maxStale() async throws {
        let transport = counting([.cacheControl: "max-age=10"])
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(get())
        clock.advance(25)
        let within = try await client.send(get("max-stale=20"))
        let any = try await client.send(get("max-stale"))
        let beyond = try await client.send(get("max-stale=5"))
        #expect([within, any, beyond] == ["v1", "v1", "v2"])

        let strict = counting([.cacheControl: "max-age=10, must-revalidate"])
        let (strictClient, _) = cachingClient(strict, clock: clock)
        _ = try await strictClient.send(get())
        clock.advance(25)
        #expect(try await strictClient.send(get("max-stale")) == "v2")
    }

    @Test("request min-fresh: a response fresh for less than it goes to the network (item 7)")
    func minFresh() async throws {
        let transport = counting([.cacheControl: "max-age=60"])
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(get())
        clock.advance(40)
        let enough = try await client.send(get("min-fresh=10"))
        let notEnough = try await client.send(get("min-fresh=30"))
        #expect([enough, notEnough] == ["v1", "v2"])
    }

    @Test("request only-if-cached: a hit is served, a miss or a stale entry is a 504 without a network call (item 7)")
    func onlyIfCachedDirective() async throws {
        let transport = counting([.cacheControl: "max-age=10"])
        let (client, _) = cachingClient(transport, clock: clock)
        let miss = try await status(client, get("only-if-cached"))
        #expect(miss == .gatewayTimeout && transport.requests.isEmpty)
        _ = try await client.send(get())
        let hit = try await client.send(get("only-if-cached"))
        clock.advance(20)
        let stale = try await status(client, get("only-if-cached"))
        #expect(hit == "v1" && stale == .gatewayTimeout)
        #expect(transport.requests.count == 1)
    }

    @Test(
        "per-route modes: default, no-store, reload, no-cache, force-cache, only-if-cached (item 8)",
        arguments: [
            (CachePolicy.default, ["v1", "v1", "v2"], [nil, "\"e\""]),
            (CachePolicy.noStore, ["v2", "v3", "v4"], [nil, nil, nil, nil]),
            (CachePolicy.reload, ["v2", "v3", "v4"], [nil, nil, nil, nil]),
            (CachePolicy.noCache, ["v2", "v3", "v4"], [nil, "\"e\"", "\"e\"", "\"e\""]),
            (CachePolicy.forceCache, ["v1", "v1", "v1"], [nil]),
            (CachePolicy.onlyIfCached, ["v1", "v1", "v1"], [nil]),
        ] as [(CachePolicy, [String], [String?])])
    func modes(policy: CachePolicy, bodies: [String], conditions: [String?]) async throws {
        let transport = counting([.cacheControl: "max-age=10", .eTag: "\"e\""])
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(get())
        var seen: [String] = []
        for gap in [1.0, 1, 20] {
            clock.advance(gap)
            seen.append(try await client.send(get().policies(cache: policy)))
        }
        #expect(seen == bodies)
        #expect(transport.requests.map { $0.headers[.ifNoneMatch] } == conditions)
    }

    @Test("mode only-if-cached on a miss is a 504 without a network call; force-cache fetches (item 8)")
    func modesOnMiss() async throws {
        let transport = counting([.cacheControl: "max-age=10"])
        let (client, _) = cachingClient(transport, clock: clock)
        let miss = try await status(client, get().policies(cache: .onlyIfCached))
        #expect(miss == .gatewayTimeout && transport.requests.isEmpty)
        #expect(try await client.send(get().policies(cache: .forceCache)) == "v1")
        #expect(transport.requests.count == 1)
    }

    @Test("Vary: each variant of a URL is kept and chosen by the request's values (item 12)")
    func varyVariants() async throws {
        let transport = StubTransport().on(.get, "*") { request in
            .text(
                request.headers[.acceptLanguage] ?? "-",
                headers: [.cacheControl: "max-age=60", "Vary": "Accept-Language"])
        }
        let (client, _) = cachingClient(transport, clock: clock)
        func greeting(_ language: String) async throws -> String {
            try await client.send(.get("greeting", headers: [.acceptLanguage: language], as: String.self))
        }
        let answers = [
            try await greeting("en"), try await greeting("fr"), try await greeting("en"), try await greeting("fr"),
        ]
        #expect(answers == ["en", "fr", "en", "fr"])
        #expect(transport.requests.count == 2)
    }

    @Test("Vary: values match after whitespace, line and (for Accept-*) case normalisation; absent ≠ empty (item 12)")
    func varyNormalised() async throws {
        let transport = counting([.cacheControl: "max-age=60", "Vary": "accept-language, X-Flavour"])
        let (client, _) = cachingClient(transport, clock: clock)
        func send(_ fields: [(String, String)]) async throws -> String {
            let headers = HTTPHeaders(fields.map { .init(name: HTTPHeaders.Name($0.0), value: $0.1) })
            return try await client.send(.get("a", headers: headers, as: String.self))
        }
        let first = try await send([("Accept-Language", "en, fr"), ("X-Flavour", "a,b")])
        let spaced = try await send([("Accept-Language", "EN ,  fr"), ("X-Flavour", "a , b")])
        let lines = try await send([("Accept-Language", "en"), ("Accept-Language", "fr"), ("X-Flavour", "a, b")])
        let otherCase = try await send([("Accept-Language", "en, fr"), ("X-Flavour", "A, b")])
        let empty = try await send([("Accept-Language", "en, fr"), ("X-Flavour", "")])
        let absent = try await send([("Accept-Language", "en, fr")])
        #expect([first, spaced, lines, otherCase, empty, absent] == ["v1", "v1", "v1", "v2", "v3", "v4"])
    }

    @Test("Vary: * is never stored, and forgets the variant it would replace (item 12)")
    func varyStar() async throws {
        let count = Locked(0)
        let transport = StubTransport().on(.get, "*") { _ in
            let n = count.withLock {
                $0 += 1
                return $0
            }
            return .text("v\(n)", headers: [.cacheControl: "max-age=60", "Vary": n == 2 ? "*" : "X-A"])
        }
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(get())
        _ = try await client.send(get("no-cache"))
        #expect(try await client.send(get()) == "v3")
    }

    @Test("a successful POST forgets the same-origin URLs its Location and Content-Location name, not others (§4.4)")
    func invalidatesLocation() async throws {
        let seen = Locked<Set<String>>([])
        let transport = StubTransport()
            .on(.get, "*") { request in
                let isFirst = seen.withLock { $0.insert(request.url.path).inserted }
                return .text(isFirst ? "old" : "new", headers: [.cacheControl: "max-age=600"])
            }
            .on(
                .post, "*",
                .status(
                    .created,
                    headers: [
                        .location: "/v1/notes/1", "Content-Location": "https://elsewhere.example/v1/notes/2",
                    ]))
        // Another origin's client sharing the cache, so a cross-origin URL has an entry to lose.
        let cache = ResponseCache()
        let elsewhere = StubTransport().on(.get, "*", .text("other", headers: [.cacheControl: "max-age=600"]))
        let otherClient = APIClient(
            baseURL: URL(string: "https://elsewhere.example/v1/")!, transport: elsewhere,
            middlewares: [ResponseCacheMiddleware(cache: cache, now: { [clock] in clock.date })])
        let (client, _) = cachingClient(transport, clock: clock, cache: cache)
        _ = try await client.send(.get("notes/1", as: String.self))
        _ = try await otherClient.send(.get("notes/2", as: String.self))
        _ = try await client.send(Request(method: .post, path: "notes", body: .text("x"), as: EmptyResponse.self))
        let first = try await client.send(.get("notes/1", as: String.self))
        let other = try await otherClient.response(for: .get("notes/2", as: String.self))

        #expect(first == "new")
        #expect(other.value == "other" && other.attempts == 0 && elsewhere.requests.count == 1)
    }

    @Test("heuristic freshness: 10% of the time since Last-Modified, capped, off per route (item 9)")
    func heuristic() async throws {
        let headers: HTTPHeaders = ["Date": clock.httpDate(), .lastModified: clock.httpDate(-10 * 3600)]
        let transport = counting(headers)
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(get())
        clock.advance(3500)
        let hit = try await client.response(for: get())
        clock.advance(200)
        let stale = try await client.send(get())
        #expect(hit.value == "v1" && hit.attempts == 0 && stale == "v2")

        let capped = counting(["Date": clock.httpDate(), .lastModified: clock.httpDate(-1000 * 86_400)])
        let (cappedClient, _) = cachingClient(
            capped, clock: clock,
            policy: CachePolicy(heuristicFreshness: .init(fraction: 0.1, limit: .seconds(60))))
        _ = try await cappedClient.send(get())
        clock.advance(61)
        #expect(try await cappedClient.send(get()) == "v2")

        let off = counting(headers)
        let (offClient, _) = cachingClient(off, clock: clock, policy: CachePolicy(heuristicFreshness: nil))
        _ = try await offClient.send(get())
        _ = try await offClient.send(get())
        #expect(off.requests.map { $0.headers[.ifModifiedSince] } == [nil, headers[.lastModified]])
    }

    @Test("heuristic freshness applies to heuristically cacheable statuses only (item 9)")
    func heuristicStatuses() async throws {
        // 404 and 410 are heuristically cacheable; 302 and 307 are stored only with an explicit
        // lifetime; no 5xx is stored, 501 included.
        let cases = [(404, 1), (410, 1), (302, 2), (307, 2), (501, 2)].map { (HTTPStatus(code: $0), $1) }
        for (code, expected) in cases {
            let transport = StubTransport().on(
                .get, "*",
                .status(code, headers: ["Date": clock.httpDate(), .lastModified: clock.httpDate(-86_400)]))
            let (client, _) = cachingClient(transport, clock: clock)
            for _ in 0..<2 {
                _ = try await status(client, get())
            }
            #expect(transport.requests.count == expected, "\(code)")
        }
    }
}
