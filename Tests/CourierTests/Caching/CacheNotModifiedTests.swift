import CourierTesting
import Foundation
import Testing

@testable import Courier

/// RFC 9111 §4.3.4: a `304 Not Modified` updates the stored responses its validator selects among
/// those stored when it arrives, and nothing else.
@Suite("Response cache: what a 304 updates (RFC 9111 §4.3.4)")
struct CacheNotModifiedTests {
    private let clock = CacheTestClock()

    /// A transport for `a`: a `no-cache` request gets `v3-new` (ETag e2); a conditional one waits
    /// until `open` is set, then gets a 304 for e1; any other gets `v1-old` (ETag e1) with `first`.
    private func racingTransport(open: Locked<Bool>, first: String) -> StubTransport {
        StubTransport().on(.get, "*") { request in
            if request.headers[.cacheControl] == "no-cache" {
                return .text("v3-new", headers: [.eTag: "\"e2\"", .cacheControl: "max-age=600"])
            }
            if request.headers[.ifNoneMatch] != nil {
                while !open.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                return .status(.notModified, headers: [.eTag: "\"e1\"", .cacheControl: "max-age=600"])
            }
            return .text("v1-old", headers: [.eTag: "\"e1\"", .cacheControl: first])
        }
    }

    @Test("a late background 304 for the old response leaves the newer one stored meanwhile alone")
    func lateBackground304() async throws {
        let open = Locked(false)
        let transport = racingTransport(open: open, first: "max-age=10, stale-while-revalidate=30")
        let (client, middleware) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        let stale = try await client.send(.get("a", as: String.self))
        let fresh = try await client.send(.get("a", headers: [.cacheControl: "no-cache"], as: String.self))
        open.withLock { $0 = true }
        await middleware.waitForBackgroundRevalidations()
        let after = try await client.response(for: .get("a", as: String.self))

        #expect(stale == "v1-old" && fresh == "v3-new")
        #expect(after.value == "v3-new" && after.attempts == 0)
        #expect(transport.requests.count == 3)
    }

    @Test("of two concurrent revalidations, the 304 arriving last does not overwrite the 200 stored first")
    func concurrentForeground304() async throws {
        let open = Locked(false)
        let transport = racingTransport(open: open, first: "max-age=10")
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        let slow = Task { try await client.send(.get("a", as: String.self)) }
        while transport.requests.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let fresh = try await client.send(.get("a", headers: [.cacheControl: "no-cache"], as: String.self))
        open.withLock { $0 = true }
        let revalidated = try await slow.value
        let after = try await client.response(for: .get("a", as: String.self))

        #expect(revalidated == "v1-old" && fresh == "v3-new")
        #expect(after.value == "v3-new" && after.attempts == 0)
    }

    @Test("a 304 that adds Vary makes the entry the revalidating request's variant, not everyone's")
    func notModifiedNewVary() async throws {
        let count = Locked(0)
        let transport = StubTransport().on(.get, "*") { request in
            let n = count.withLock {
                $0 += 1
                return $0
            }
            if request.headers[.ifNoneMatch] != nil {
                return .status(.notModified, headers: [.eTag: "\"e\"", .cacheControl: "max-age=60", "Vary": "X-User"])
            }
            let user = request.headers["X-User"] ?? "-"
            return .text("v\(n) user=\(user)", headers: [.cacheControl: "max-age=10", .eTag: "\"e\""])
        }
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", headers: ["X-User": "alice"], as: String.self))
        clock.advance(15)
        let alice = try await client.send(.get("a", headers: ["X-User": "alice"], as: String.self))
        let aliceAgain = try await client.response(for: .get("a", headers: ["X-User": "alice"], as: String.self))
        let bob = try await client.response(for: .get("a", headers: ["X-User": "bob"], as: String.self))

        #expect(alice == "v1 user=alice")
        #expect(bob.value == "v3 user=bob" && bob.attempts == 1)
        #expect(aliceAgain.value == "v1 user=alice" && aliceAgain.attempts == 0)
    }

    @Test("a 304 without validators updates the response whose validators the request sent")
    func validatorlessNotModified() async throws {
        let transport = StubTransport().on(
            .get, "*", .text("v1", headers: [.eTag: "\"e1\"", .cacheControl: "max-age=10"]),
            .status(.notModified, headers: [.cacheControl: "max-age=600"]))
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(15)
        let revalidated = try await client.send(.get("a", as: String.self))
        clock.advance(100)
        let hit = try await client.response(for: .get("a", as: String.self))

        #expect(revalidated == "v1" && hit.value == "v1" && hit.attempts == 0)
        #expect(transport.requests.count == 2)
    }
}
