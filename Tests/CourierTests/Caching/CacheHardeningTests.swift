import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The response cache against what an attacker or a hostile server can do: large heads against
/// the memory limit, and a cache folder someone else made first.
@Suite("Response cache hardening")
struct CacheHardeningTests {
    private func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-trust-\(UUID().uuidString)")
    }

    private func client(_ transport: StubTransport, cache: ResponseCache) -> APIClient {
        APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [ResponseCacheMiddleware(cache: cache, policy: .timeToLive(.seconds(600)))])
    }

    @Test("responses with 250 KB heads count their heads against the memory limit")
    func headsCount() async throws {
        let bigHeader = String(repeating: "h", count: 250_000)
        let transport = StubTransport().on(.get, "/v1/item") { _ in
            .status(.ok, body: "x", headers: ["X-Padding": bigHeader])
        }
        let cache = ResponseCache(memoryCostLimit: 1 << 20)
        let client = client(transport, cache: cache)

        for index in 0..<20 {
            _ = try await client.send(.get("item", query: ["n": "\(index)"], as: Data.self))
        }

        #expect(cache.memoryCount <= 4, "\(cache.memoryCount) entries of 250 KB kept against a 1 MiB limit")
    }

    /// A folder holding an entry for `GET /v1/item`, stored by a real cache.
    private func folderWithEntry() async throws -> URL {
        let directory = folder()
        let transport = StubTransport().on(.get, "/v1/item", .text("genuine"))
        let cache = try ResponseCache(configuration: .init(directory: directory))
        _ = try await client(transport, cache: cache).send(.get("item", as: String.self))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
        return directory
    }

    @Test("a folder others may write to is emptied and closed before use: its entries are never served")
    func worldWritableFolder() async throws {
        let directory = try await folderWithEntry()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(chmod(directory.path, 0o777) == 0)
        let transport = StubTransport().on(.get, "/v1/item", .text("fresh"))

        let cache = try ResponseCache(configuration: .init(directory: directory))
        let body = try await client(transport, cache: cache).send(.get("item", as: String.self))

        #expect(body == "fresh")
        #expect(transport.requests.count == 1)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test(
        "a folder owned by another user is refused", .enabled(if: geteuid() == 0, "only root can make such a folder"))
    func foreignFolder() async throws {
        let directory = try await folderWithEntry()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(chown(directory.path, 65534, 65534) == 0)

        #expect(throws: (any Error).self) { try ResponseCache(configuration: .init(directory: directory)) }
    }

    @Test("a symbolic link in place of the folder is refused")
    func linkedFolder() async throws {
        let target = try await folderWithEntry()
        let link = folder()
        defer {
            try? FileManager.default.removeItem(at: target)
            try? FileManager.default.removeItem(at: link)
        }
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        #expect(throws: (any Error).self) { try ResponseCache(configuration: .init(directory: link)) }
    }
}
