import Courier
import Foundation
import Testing

/// A clock that starts at the real time and moves only when the test says (the server's `Date`
/// stays meaningful; staleness comes without sleeping).
private final class MovableClock: Sendable {
    private let now = Locked(Date())
    var date: Date { now.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { now.withLock { $0.addTimeInterval(seconds) } }
}

/// What `/count/NAME` answers.
private struct Counts: Decodable, Equatable {
    let requests: Int
    let conditional: Int
}

/// The response cache on real sockets against `scripts/servers/cache.py`, on every transport.
@Suite(
    "Response cache end to end",
    .enabled(if: LocalServers.cache != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct CacheIntegrationTests {
    private let base = LocalServers.cache ?? URL(string: "http://127.0.0.1:9")!

    private func client(_ kind: TransportKind, clock: MovableClock = MovableClock()) -> (
        APIClient, ResponseCacheMiddleware
    ) {
        let middleware = ResponseCacheMiddleware(now: { clock.date })
        return (APIClient(baseURL: base, transport: kind.make(), middlewares: [middleware]), middleware)
    }

    private func counts(_ name: String, _ kind: TransportKind) async throws -> Counts {
        try await APIClient(baseURL: base, transport: kind.make()).send(.get("count/\(name)", as: Counts.self))
    }

    private static func unique(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }

    @Test(
        "ETag revalidation: a 304 updates the stored headers, without its Set-Cookie or Connection-named fields",
        arguments: TransportKind.allCases)
    func eTagRevalidation(kind: TransportKind) async throws {
        let name = Self.unique("etag")
        let (client, _) = client(kind)

        let first = try await client.response(for: .get("etag/\(name)", as: String.self))
        let revalidated = try await client.response(for: .get("etag/\(name)", as: String.self))
        let hit = try await client.response(for: .get("etag/\(name)", as: String.self))

        #expect(first.value == "rev 1" && revalidated.value == "rev 1" && hit.value == "rev 1")
        #expect(revalidated.response.status == .ok && revalidated.request.headers[.ifNoneMatch] == "\"v1\"")
        #expect(revalidated.response.headers[.setCookie] == "session=SENTINEL-304")
        #expect(hit.attempts == 0 && hit.response.headers["X-Revalidated"] == "yes")
        #expect(hit.response.headers[.cacheControl] == "max-age=60" && hit.response.headers["Age"] != nil)
        #expect(!hit.response.headers.contains(.setCookie) && !hit.response.headers.contains("X-Hop"))
        #expect(try await counts(name, kind) == Counts(requests: 2, conditional: 1))
    }

    @Test("Last-Modified revalidation with If-Modified-Since", arguments: TransportKind.allCases)
    func lastModifiedRevalidation(kind: TransportKind) async throws {
        let name = Self.unique("lastmod")
        let (client, _) = client(kind)

        _ = try await client.send(.get("lastmod/\(name)", as: String.self))
        let second = try await client.response(for: .get("lastmod/\(name)", as: String.self))

        #expect(second.value == "rev 1" && second.request.headers[.ifModifiedSince] != nil)
        #expect(try await counts(name, kind) == Counts(requests: 2, conditional: 1))
    }

    @Test("a successful POST forgets the stored GET of its URL", arguments: TransportKind.allCases)
    func unsafeInvalidates(kind: TransportKind) async throws {
        let name = Self.unique("post")
        let (client, _) = client(kind)
        let get = Request.get("etag/\(name)", query: ["cc": "max-age=600"], as: String.self)

        let before = try await client.send(get)
        let cached = try await client.response(for: get)
        _ = try await client.send(
            Request(
                method: .post, path: "etag/\(name)", query: ["cc": "max-age=600"], body: .text("x"),
                as: EmptyResponse.self))
        let after = try await client.send(get)

        #expect(before == "rev 1" && cached.attempts == 0 && after == "rev 2")
    }

    @Test(
        "stale-while-revalidate: the stale body at once, the refreshed one after the background revalidation",
        arguments: TransportKind.allCases)
    func staleWhileRevalidate(kind: TransportKind) async throws {
        let name = Self.unique("swr")
        let (client, middleware) = client(kind)
        // The first answer is 40 s old (Age) with max-age=30: stale on arrival, within its window.
        let request = Request.get(
            "swr/\(name)", query: ["cc": "max-age=30, stale-while-revalidate=60", "age": "40"], as: String.self)

        let first = try await client.send(request)
        let stale = try await client.response(for: request)
        await middleware.waitForBackgroundRevalidations()
        let refreshed = try await client.response(for: request)

        #expect(first == "v1" && stale.value == "v1" && stale.attempts == 0)
        #expect(refreshed.value == "v2" && refreshed.attempts == 0)
        #expect(try await counts(name, kind).requests == 2)
    }

    @Test(
        "an unknown content coding: CurlTransport delivers the body undecoded, Content-Encoding intact; URLSession on Linux fails",
        arguments: TransportKind.allCases)
    func unknownContentEncoding(kind: TransportKind) async throws {
        let client = APIClient(baseURL: base, transport: kind.make())
        let request = Request.get("encoding/unknown", as: Data.self)
        #if canImport(FoundationNetworking)
            if !kind.isCurl {
                await #expect(throws: APIError.self) { try await client.send(request) }
                return
            }
        #endif
        let response = try await client.response(for: request)
        #expect(response.value == Data([0, 1] + Array("not-any-known-coding".utf8) + [0xFF]))
        #expect(response.response.headers[.contentEncoding] == "x-courier-unknown")
    }

    @Test(
        "a known coding that does not decode (a gzip body that is not gzip) is not asked again: a bad response, one request"
    )
    func corruptGzipNotAskedAgain() async throws {
        let client = APIClient(baseURL: base, transport: TransportKind.curl.make())
        let name = Self.unique("corrupt")

        await #expect {
            try await client.send(.get("corrupt-gzip/\(name)", as: Data.self))
        } throws: { error in
            (error as? APIError)?.kind == .transport(.badResponse)
        }
        #expect(try await counts(name, .curl).requests == 1)
    }

    @Test("an unknown content coding answering a POST is not asked again: a bad response, one request")
    func unknownContentEncodingPost() async throws {
        let client = APIClient(baseURL: base, transport: TransportKind.curl.make())
        let name = Self.unique("encoding")
        let post = Request(method: .post, path: "encoding/\(name)", body: .text("x"), as: Data.self)

        await #expect {
            try await client.send(post)
        } throws: { error in
            (error as? APIError)?.kind == .transport(.badResponse)
        }
        #expect(try await counts(name, .curl).requests == 1)
    }
}
