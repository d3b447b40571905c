import Courier
import Foundation
import Testing

/// Planted secrets looked for where they must never be: error text, request descriptions, cURL
/// renderings, logs and the disk cache, on a real socket, on both transports.
@Suite(
    "Secrets stay secret",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct SecretSentinelTests {
    private struct Count: Decodable { let count: Int }
    private struct OK: Decodable, Sendable { let ok: Bool }

    private func count(_ key: String) async throws -> Int {
        let client = APIClient(baseURL: try #require(LocalServers.faults), transport: CurlTransport())
        return try await client.send(.get("count", query: ["key": key], as: Count.self)).count
    }

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-sentinel-\(UUID())")
        return folder
    }

    /// Every byte stored under `folder`, as text.
    private func everythingStored(in folder: URL) throws -> String {
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        return try files.map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }.joined(separator: "\n")
    }

    @Test(
        "an API key in a query item with a plain name (appid) is hidden everywhere and not cached",
        arguments: TransportKind.allCases)
    func plainNamedQueryCredential(kind: TransportKind) async throws {
        let sentinel = "SENTINEL-appid-\(UUID().uuidString.prefix(8))"
        let key = "appid-\(UUID())"
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LogLines()
        let client = APIClient(
            baseURL: try #require(LocalServers.faults), transport: kind.make(),
            middlewares: [
                AuthMiddleware(credential: .apiKey(sentinel, queryItem: "appid")),
                ResponseCacheMiddleware(
                    cache: try ResponseCache(configuration: .init(directory: folder)),
                    policy: .timeToLive(.seconds(60))),
                LoggingMiddleware(sink: log, configuration: .init(logsHeaders: true, logsBodies: true)),
            ])

        for _ in 0..<2 {
            _ = try await client.send(.get("ok", query: ["key": key], as: OK.self))
        }
        let error = await #expect(throws: APIError.self) {
            try await client.send(.get("status/404", query: ["key": key], as: OK.self))
        }

        #expect(try await count(key) == 3, "an authenticated response was served from the cache")
        #expect(try everythingStored(in: folder).isEmpty)
        let error404 = try #require(error)
        let request = try #require(error404.request)
        #expect(request.url.query?.contains(sentinel) == true, "the key was not sent")
        for text in [error404.description, "\(request)", request.curlCommand()] + log.all {
            #expect(!text.contains(sentinel), "\(text)")
        }
    }

    @Test(
        "a stored authenticated response keeps no token, cookie or key on disk", arguments: TransportKind.allCases)
    func nothingSecretAtRest(kind: TransportKind) async throws {
        let tag = UUID().uuidString.prefix(8)
        let (token, cookie, apiKey) = ("SENTINEL-token-\(tag)", "SENTINEL-cookie-\(tag)", "SENTINEL-key-\(tag)")
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = APIClient(
            baseURL: try #require(LocalServers.faults), transport: kind.make(),
            middlewares: [
                ResponseCacheMiddleware(
                    cache: try ResponseCache(configuration: .init(directory: folder)),
                    policy: CachePolicy(storesAuthenticatedResponses: true))
            ])
        let request = Request<OK>(
            method: .get, path: "cacheable", query: ["api_key": apiKey, "key": "at-rest-\(tag)"],
            headers: [.authorization: "Bearer \(token)", .cookie: "sid=\(cookie)"], as: OK.self)

        _ = try await client.send(request)
        let second = try await client.response(for: request)

        #expect(second.attempts == 0, "the response was not stored")
        #expect(second.response.url?.query?.contains(apiKey) == true)
        let stored = try everythingStored(in: folder)
        #expect(!stored.isEmpty)
        for secret in [token, cookie, apiKey] {
            #expect(!stored.contains(secret), "\(secret) is on disk")
        }
    }

    @Test(
        "a redirect to a URL with a token keeps the token out of the disk cache and out of every cache hit",
        arguments: TransportKind.allCases)
    func redirectedURLAtRest(kind: TransportKind) async throws {
        let httpbin = try #require(LocalServers.httpbin)
        let token = "SENTINEL-redirect-\(UUID().uuidString.prefix(8))"
        let landing = httpbin.appending(path: "robots.txt").absoluteString + "?access_token=\(token)&lang=en"
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = { () throws -> APIClient in
            APIClient(
                baseURL: httpbin, transport: kind.make(),
                middlewares: [
                    ResponseCacheMiddleware(
                        cache: try ResponseCache(configuration: .init(directory: folder)),
                        policy: .timeToLive(.seconds(60)))
                ])
        }
        let request = Request.get("redirect-to", query: ["url": landing], as: Data.self)
        let cached = try client()

        let first = try await cached.response(for: request)
        // From the cache that stored it, then from a new cache that can only read it from disk.
        let hits = try await [cached.response(for: request), client().response(for: request)]

        #expect(first.response.redirectCount == 1)
        #expect(first.response.url?.query?.contains(token) == true, "the redirect did not land on the token's URL")
        let stored = try everythingStored(in: folder)
        let (isStored, isLeaked) = (stored.contains("Disallow"), stored.contains(token))
        #expect(isStored, "the response was not stored")
        #expect(!isLeaked, "the redirect's token is on disk")
        for hit in hits {
            #expect(hit.attempts == 0, "the response was not served from the cache")
            let url = try #require(hit.response.url)
            #expect(url.path == "/robots.txt", "a cache hit hands out \(url), not the URL the redirect led to")
            #expect(!url.absoluteString.contains(token), "a cache hit hands out \(url)")
        }
    }
}
