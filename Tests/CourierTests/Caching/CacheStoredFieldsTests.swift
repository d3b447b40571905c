import CourierTesting
import Foundation
import Testing

@testable import Courier

/// What an entry may keep (RFC 9111 §3.1, §3.2): never `Set-Cookie`, hop-by-hop fields or the
/// fields a `Connection` header names, whichever path a field takes into the entry: the first
/// response, a `304`'s update, or bytes read back from disk.
@Suite("Response cache: stored fields")
struct CacheStoredFieldsTests {
    private let clock = CacheTestClock()

    private static let connectionHeaders: HTTPHeaders = [
        "Connection": "close, X-Hop-Secret", "X-Hop-Secret": "hop-SENTINEL", "Keep-Alive": "timeout=5",
        "Proxy-Authenticate": "Basic", "Trailer": "X-Checksum", "Upgrade": "h2c",
    ]

    private static func hopFree(_ headers: HTTPHeaders) -> Bool {
        !["Connection", "X-Hop-Secret", "Keep-Alive", "Proxy-Authenticate", "Trailer", "Upgrade", "Set-Cookie"]
            .contains { headers.contains(HTTPHeaders.Name($0)) }
    }

    @Test("hop-by-hop fields and the fields Connection names are not stored or replayed (defect 5)")
    func connectionNamedNotStored() async throws {
        var headers = Self.connectionHeaders
        headers.set(.cacheControl, "max-age=60")
        headers.set("X-Kept", "1")
        let transport = StubTransport().on(.get, "*", .text("x", headers: headers))
        let (client, _) = cachingClient(transport, clock: clock)

        _ = try await client.send(.get("a", as: String.self))
        let hit = try await client.response(for: .get("a", as: String.self))

        #expect(hit.attempts == 0)
        #expect(Self.hopFree(hit.response.headers), "\(hit.response.headers)")
        #expect(hit.response.headers["X-Kept"] == "1")
    }

    @Test(
        "a 304 with Set-Cookie and Connection-named fields updates the entry without them",
        arguments: [false, true])
    func notModifiedWithHopFields(onDisk: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-304-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var notModified = Self.connectionHeaders
        notModified.set(.eTag, "\"v1\"")
        notModified.set(.cacheControl, "max-age=60")
        notModified.set("X-Updated", "yes")
        notModified.add(.setCookie, "session=cookie-SENTINEL")
        let frozen = notModified
        let transport = StubTransport().on(.get, "*") { request in
            request.headers[.ifNoneMatch] == "\"v1\""
                ? .status(.notModified, headers: frozen)
                : .text("body", headers: [.eTag: "\"v1\"", .cacheControl: "no-cache", "X-Updated": "no"])
        }
        let cache = try ResponseCache(configuration: .init(directory: onDisk ? folder : nil))
        let (client, _) = cachingClient(transport, clock: clock, cache: cache)

        _ = try await client.send(.get("a", as: String.self))
        let revalidated = try await client.response(for: .get("a", as: String.self))
        let reader = onDisk ? try ResponseCache(configuration: .init(directory: folder)) : cache
        let hit = try await cachingClient(transport, clock: clock, cache: reader).0.response(
            for: .get("a", as: String.self))

        #expect(revalidated.response.headers[.setCookie] == "session=cookie-SENTINEL")
        #expect(hit.attempts == 0 && hit.value == "body")
        #expect(hit.response.headers["X-Updated"] == "yes")
        #expect(Self.hopFree(hit.response.headers), "\(hit.response.headers)")
        if onDisk {
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            let stored = try files.map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }.joined()
            #expect(!stored.contains("SENTINEL"), "a hop-by-hop field or a cookie is on disk")
        }
    }

    @Test("a 304 replaces every stored field of a name it sends, keeping its several lines")
    func notModifiedReplacesAllLines() async throws {
        let transport = StubTransport().on(.get, "*") { request in
            request.headers[.ifNoneMatch] == "\"v1\""
                ? .status(
                    .notModified,
                    headers: HTTPHeaders([
                        .init(name: .link, value: "</a>"), .init(name: .link, value: "</b>"),
                        .init(name: .eTag, value: "\"v1\""), .init(name: .contentType, value: "text/html"),
                    ]))
                : .text("body", headers: [.eTag: "\"v1\"", .link: "</old>", .cacheControl: "no-cache"])
        }
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        let revalidated = try await client.response(for: .get("a", as: String.self))

        #expect(revalidated.response.headers.values(for: .link) == ["</a>", "</b>"])
        #expect(revalidated.response.headers[.contentType]?.hasPrefix("text/plain") == true)
    }

    @Test("a 304 whose ETag is not the stored one updates nothing: the request is sent again unconditionally")
    func notModifiedForAnotherRepresentation() async throws {
        let transport = StubTransport().on(.get, "*") { request in
            switch request.headers[.ifNoneMatch] {
            case "\"v1\"": .status(.notModified, headers: [.eTag: "\"v2\"", .cacheControl: "max-age=60"])
            case nil where request.headers[.ifModifiedSince] == nil:
                .text("fresh", headers: [.eTag: "\"v1\"", .cacheControl: "no-cache"])
            default: .text("unexpected")
            }
        }
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        let second = try await client.response(for: .get("a", as: String.self))

        #expect(transport.requests.map { $0.headers[.ifNoneMatch] } == [nil, "\"v1\"", nil])
        #expect(second.value == "fresh" && second.response.headers[.cacheControl] == "no-cache")
    }

    @Test("an entry on disk holding Set-Cookie or Connection-named fields is read back without them (defect 2)")
    func plantedOnDisk() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-planted-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = HTTPRequest(method: .get, url: URL(string: "https://example.com/a")!)
        let response = HTTPResponse(
            status: .ok, headers: [.cacheControl: "max-age=60"], body: Data("x".utf8), url: request.url)
        let key = ResponseCacheMiddleware.key(for: request.url, credential: nil)
        let writer = try ResponseCache(configuration: .init(directory: folder))
        writer.store(
            CachedResponse(
                response: response, request: request, storedAt: clock.date, correctedInitialAge: 0,
                freshnessLifetime: 60),
            forKey: key, request: request)
        // Plant what an older version, or anyone with the folder, could have written.
        let file = try #require(
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).first)
        var text = try #require(String(data: try Data(contentsOf: file), encoding: .isoLatin1))
        text = text.replacingOccurrences(
            of: #"["Cache-Control","max-age=60"]"#,
            with: #"["Cache-Control","max-age=60"],["Set-Cookie","s=SENTINEL"],["Connection","X-A"],["X-A","SENTINEL"]"#
        )
        var data = try #require(text.data(using: .isoLatin1))
        // Fix the lengths the planted text grew.
        let grown = data.count - (try Data(contentsOf: file)).count
        func bump(at offset: Int) {
            let value = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } + grown
            withUnsafeBytes(of: UInt32(value).bigEndian) { data.replaceSubrange(offset..<offset + 4, with: $0) }
        }
        bump(at: 8)
        bump(at: 16)
        try data.write(to: file)

        let reader = try ResponseCache(configuration: .init(directory: folder))
        let entry = try #require(reader.entry(forKey: key, matching: request))
        let headers = entry.response(for: request, at: clock.date).headers
        #expect(!headers.contains(.setCookie) && !headers.contains("X-A") && !headers.contains("Connection"))
        #expect(headers[.cacheControl] == "max-age=60")
    }
}
