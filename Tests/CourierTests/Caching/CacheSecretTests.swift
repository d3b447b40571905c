import Courier
import CourierTesting
import Foundation
import Testing

/// What a stored response must not keep: a `Set-Cookie` (the answer to one exchange, in any
/// spelling, from the first response or from a `304` that revalidated it) and a credential in the
/// URL a redirect led to. Each is planted as a sentinel and looked for in every file of the cache's
/// folder and in the responses the cache hands out later, from memory and from disk.
@Suite("Response cache: nothing secret kept")
struct CacheSecretTests {
    /// Where a cache hit comes from.
    enum Tier: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A cache in memory only.
        case memory
        /// A cache with a folder, read back by a new cache on the same folder.
        case disk

        var testDescription: String { rawValue }
    }

    /// The spellings of `Set-Cookie` a server may send.
    static let setCookieNames = ["Set-Cookie", "sEt-cOOKIE"]

    /// A cache of this tier, and the folder of the disk tier (the caller removes it).
    private struct Store {
        let tier: Tier
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-secret-\(UUID())")

        func cache() throws -> ResponseCache {
            tier == .disk ? try ResponseCache(configuration: .init(directory: folder)) : ResponseCache()
        }

        /// Every byte stored in the folder, as text.
        func everythingStored() throws -> String {
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            return try files.map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }.joined(separator: "\n")
        }
    }

    private func client(_ transport: any HTTPTransport, cache: ResponseCache) -> APIClient {
        APIClient(baseURL: baseURL, transport: transport, middlewares: [ResponseCacheMiddleware(cache: cache)])
    }

    /// The cache hits the test reads back: from the cache that stored the response, and for the disk
    /// tier from a new cache on the same folder, which can only have it from disk.
    private func hits(
        _ request: Request<String>, transport: any HTTPTransport, cache: ResponseCache, store: Store
    ) async throws -> [APIResponse<String>] {
        var caches = [cache]
        if store.tier == .disk { caches.append(try store.cache()) }
        var hits: [APIResponse<String>] = []
        for cache in caches {
            let hit = try await client(transport, cache: cache).response(for: request)
            #expect(hit.attempts == 0, "the response was not served from the cache")
            hits.append(hit)
        }
        return hits
    }

    @Test(
        "a Set-Cookie, whatever its name's case, is neither stored nor replayed by a cache hit",
        arguments: setCookieNames, Tier.allCases)
    func setCookieNotStored(name: String, tier: Tier) async throws {
        let sentinel = "SENTINEL-cookie-\(UUID().uuidString.prefix(8))"
        let store = Store(tier: tier)
        defer { try? FileManager.default.removeItem(at: store.folder) }
        let transport = StubTransport().on(
            .get, "/v1/profile",
            .text(
                "profile",
                headers: [HTTPHeaders.Name(name): "session=\(sentinel); Path=/; HttpOnly", .cacheControl: "max-age=60"])
        )
        let cache = try store.cache()
        let request = Request.get("profile", as: String.self)

        let first = try await client(transport, cache: cache).response(for: request)
        let hits = try await hits(request, transport: transport, cache: cache, store: store)

        #expect(first.response.headers[.setCookie]?.contains(sentinel) == true, "the exchange lost its own cookie")
        if tier == .disk {
            let stored = try store.everythingStored()
            let (isStored, isLeaked) = (stored.contains("profile"), stored.contains(sentinel))
            #expect(isStored, "nothing was stored")
            #expect(!isLeaked, "the cookie is on disk")
        }
        for hit in hits {
            #expect(hit.value == "profile")
            #expect(!hit.response.headers.contains(.setCookie), "a cache hit replays \(hit.response.headers)")
            #expect(!hit.response.headers.contains { $0.value.contains(sentinel) })
        }
        #expect(transport.requests.count == 1)
    }

    @Test(
        "a 304's Set-Cookie reaches its own exchange but is neither stored nor replayed by a later hit",
        arguments: setCookieNames, Tier.allCases)
    func revalidationSetCookieNotStored(name: String, tier: Tier) async throws {
        let sentinel = "SENTINEL-cookie-\(UUID().uuidString.prefix(8))"
        let store = Store(tier: tier)
        defer { try? FileManager.default.removeItem(at: store.folder) }
        let transport = StubTransport().on(.get, "/v1/profile") { request in
            request.headers[.ifNoneMatch] == #""v1""#
                ? .status(
                    .notModified,
                    headers: [
                        .eTag: #""v1""#, .cacheControl: "max-age=60", HTTPHeaders.Name(name): "session=\(sentinel)",
                    ])
                : .text("profile", headers: [.eTag: #""v1""#, .cacheControl: "no-cache"])
        }
        let cache = try store.cache()
        let request = Request.get("profile", as: String.self)

        _ = try await client(transport, cache: cache).send(request)
        let revalidated = try await client(transport, cache: cache).response(for: request)
        let hits = try await hits(request, transport: transport, cache: cache, store: store)

        #expect(transport.requests.map { $0.headers[.ifNoneMatch] } == [nil, #""v1""#])
        #expect(revalidated.value == "profile")
        // A cookie jar placed before the cache must still see the cookie the server set on this exchange.
        #expect(revalidated.response.headers[.setCookie]?.contains(sentinel) == true)
        if tier == .disk {
            let stored = try store.everythingStored()
            let (isStored, isLeaked) = (stored.contains("max-age=60"), stored.contains(sentinel))
            #expect(isStored, "the revalidated entry was not stored")
            #expect(!isLeaked, "the 304's cookie is on disk")
        }
        for hit in hits {
            #expect(hit.value == "profile")
            #expect(!hit.response.headers.contains(.setCookie), "a cache hit replays \(hit.response.headers)")
            #expect(!hit.response.headers.contains { $0.value.contains(sentinel) })
        }
    }

    /// A transport that has followed a redirect: every response comes from `finalURL`.
    private struct RedirectedTransport: HTTPTransport {
        let finalURL: URL

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(
                status: .ok, headers: [.contentType: "text/plain", .cacheControl: "max-age=60"],
                body: Data("landed".utf8), url: finalURL, redirectCount: 1)
        }
    }

    @Test("the URL a redirect led to is stored without its secret query values", arguments: Tier.allCases)
    func redirectedURLRedacted(tier: Tier) async throws {
        let sentinel = "SENTINEL-token-\(UUID().uuidString.prefix(8))"
        let finalURL = try #require(
            URL(string: "https://cdn.example.com/files/report?access_token=\(sentinel)&page=2"))
        let store = Store(tier: tier)
        defer { try? FileManager.default.removeItem(at: store.folder) }
        let transport = RedirectedTransport(finalURL: finalURL)
        let cache = try store.cache()
        let request = Request.get("report", as: String.self)

        let first = try await client(transport, cache: cache).response(for: request)
        let hits = try await hits(request, transport: transport, cache: cache, store: store)

        #expect(first.response.url == finalURL)
        if tier == .disk {
            let stored = try store.everythingStored()
            let (isStored, isLeaked) = (stored.contains("landed"), stored.contains(sentinel))
            #expect(isStored, "nothing was stored")
            #expect(!isLeaked, "the redirect's token is on disk")
        }
        for hit in hits {
            let url = try #require(hit.response.url)
            #expect(!url.absoluteString.contains(sentinel), "a cache hit hands out \(url)")
            #expect(url.host == "cdn.example.com" && url.path == "/files/report", "\(url)")
            #expect(url.query?.contains("page=2") == true, "\(url)")
        }
    }
}
