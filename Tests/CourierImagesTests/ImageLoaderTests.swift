import Courier
import CourierImages
import CourierTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func url(_ name: String) -> URL { URL(string: "https://img.example.com/\(name)")! }

@Suite("Image loader")
struct ImageLoaderTests {
    private func loader(_ transport: StubTransport, _ configuration: ImageLoader.Configuration = .init()) throws
        -> ImageLoader
    {
        try ImageLoader(client: APIClient(baseURL: url(""), transport: transport), configuration: configuration)
    }

    private func images(delay: Duration = .zero) -> StubTransport {
        StubTransport().on(.get, "*") { request in
            let side = Int(request.url.lastPathComponent.filter(\.isNumber)) ?? 1
            return .response(headers: [.contentType: "image/png"], body: TestImages.png(width: side, height: side))
                .delayed(by: delay)
        }
    }

    private func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-images-\(UUID().uuidString)")
    }

    @Test("a disk folder others may write to is emptied before use; one of another user's is refused")
    func untrustedFolder() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await loader(images(), .init(directory: directory)).image(for: url("d4.png"))
        #expect(chmod(directory.path, 0o777) == 0)

        let transport = images()
        _ = try await loader(transport, .init(directory: directory)).image(for: url("d4.png"))

        #expect(transport.requests.count == 1, "an image from a folder open to others was trusted")
        if geteuid() == 0 {
            #expect(chown(directory.path, 65534, 65534) == 0)
            #expect(throws: (any Error).self) { try loader(images(), .init(directory: directory)) }
        }
    }

    @Test("memory first: a second load makes no transport call")
    func memoryHit() async throws {
        let transport = images()
        let loader = try loader(transport)

        let first = try await loader.image(for: url("a8.png"))
        let second = try await loader.image(for: url("a8.png"))

        #expect(first == second && first.pixelWidth == 8)
        #expect(transport.requests.count == 1)
        #expect(loader.cachedImage(for: url("a8.png")) == first)
    }

    @Test("the memory cache evicts the least recently used, by count and by cost")
    func eviction() async throws {
        let transport = images()
        let byCount = try loader(transport, .init(memoryCountLimit: 2))
        for name in ["a1.png", "b2.png", "a1.png", "c3.png"] { _ = try await byCount.image(for: url(name)) }
        #expect(byCount.cachedImage(for: url("a1.png")) != nil && byCount.cachedImage(for: url("c3.png")) != nil)
        #expect(byCount.cachedImage(for: url("b2.png")) == nil)

        let small = TestImages.png(width: 10, height: 10).count
        let byCost = try loader(transport, .init(memoryCostLimit: small * 2))
        for name in ["x10.png", "y10.png", "z10.png"] { _ = try await byCost.image(for: url(name)) }
        #expect(byCost.cachedImage(for: url("x10.png")) == nil && byCost.cachedImage(for: url("z10.png")) != nil)
    }

    @Test("the disk cache survives a second loader, names files by hash, and drops a corrupt file")
    func diskCache() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = images()

        _ = try await loader(transport, .init(directory: directory)).image(for: url("../../d6.png"))
        let restarted = try await loader(transport, .init(directory: directory)).image(for: url("../../d6.png"))
        #expect(restarted.pixelWidth == 6 && transport.requests.count == 1)

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 1 && files[0].count == 64 && files[0].allSatisfy(\.isHexDigit))
        try Data("garbage".utf8).write(to: directory.appendingPathComponent(files[0]))
        let reloaded = try await loader(transport, .init(directory: directory)).image(for: url("../../d6.png"))
        #expect(reloaded.pixelWidth == 6 && transport.requests.count == 2)
    }

    @Test("50 concurrent loads of one URL make one download, each caller notified of progress")
    func coalescing() async throws {
        let transport = images(delay: .milliseconds(200))
        let loader = try loader(transport)
        let reports = Locked(0)

        let loaded = try await withThrowingTaskGroup(of: ImageData.self) { group in
            for _ in 0..<50 {
                group.addTask { try await loader.image(for: url("p40.png")) { _ in reports.withLock { $0 += 1 } } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(loaded.count == 50 && Set(loaded).count == 1)
        #expect(transport.requests.count == 1)
        // Progress reaches the callbacks on the loader's own queue, maybe after the loads returned.
        let deadline = ContinuousClock.now + .seconds(45)
        while reports.withLock({ $0 }) < 50, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(reports.withLock { $0 } >= 50)
    }

    @Test("cancelling every caller cancels the download; one caller leaving does not")
    func cancellation() async throws {
        let cancelled = Locked(0)
        let transport = StubTransport().on(.get, "*") { _ in
            do {
                try await Task.sleep(for: .seconds(10))
            } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
            return .response(body: TestImages.png(width: 1, height: 1))
        }
        let loader = try loader(transport)

        let callers = (0..<5).map { _ in Task { try await loader.image(for: url("slow.png")) } }
        try await Task.sleep(for: .milliseconds(100))
        callers[0].cancel()
        await #expect(throws: CancellationError.self) { try await callers[0].value }
        try await Task.sleep(for: .milliseconds(50))
        #expect(cancelled.withLock { $0 } == 0)
        for caller in callers.dropFirst() { caller.cancel() }
        for caller in callers { _ = try? await caller.value }
        try await Task.sleep(for: .milliseconds(100))

        #expect(cancelled.withLock { $0 } == 1)
        #expect(transport.requests.count == 1)
    }

    @Test("an image over the size limit and bytes that are not an image fail, and are not cached")
    func failures() async throws {
        let transport = StubTransport()
            .on(.get, "/big.png", .response(body: TestImages.png(width: 100, height: 100)))
            .on(.get, "/page.png", .text("<html>"))
            .on(.get, "/missing.png", .status(.notFound))
        let loader = try loader(transport, .init(maximumImageSize: 1_000))

        let big = await #expect(throws: APIError.self) { try await loader.image(for: url("big.png")) }
        let page = await #expect(throws: APIError.self) { try await loader.image(for: url("page.png")) }
        let missing = await #expect(throws: APIError.self) { try await loader.image(for: url("missing.png")) }

        #expect(big?.kind == .transport(.responseTooLarge))
        #expect(page?.kind == .decoding)
        #expect(missing?.kind == .unacceptableStatus(.notFound))
        #expect(loader.cachedImage(for: url("page.png")) == nil)
    }

    @Test("at most the configured number of downloads run at once")
    func concurrencyLimit() async throws {
        let running = Locked((now: 0, most: 0))
        let transport = StubTransport().on(.get, "*") { _ in
            running.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            try await Task.sleep(for: .milliseconds(50))
            running.withLock { $0.now -= 1 }
            return .response(body: TestImages.png(width: 2, height: 2))
        }
        let loader = try loader(transport, .init(maximumConcurrentDownloads: 2))

        try await withThrowingTaskGroup(of: ImageData.self) { group in
            for index in 0..<8 { group.addTask { try await loader.image(for: url("n\(index).png")) } }
            try await group.waitForAll()
        }

        #expect(running.withLock { $0.most } == 2)
        #expect(transport.requests.count == 8)
    }

    @Test("prefetching fills the cache; cancelling it stops the rest")
    func prefetch() async throws {
        let transport = images()
        let loader = try loader(transport)

        await loader.prefetch([url("f1.png"), url("f2.png"), url("f3.png")]).value
        #expect(transport.requests.count == 3)
        #expect(loader.cachedImage(for: url("f2.png")) != nil)

        let slow = images(delay: .seconds(10))
        let slowLoader = try self.loader(slow)
        let task = slowLoader.prefetch((0..<5).map { url("s\($0).png") })
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await task.value
        #expect(slowLoader.cachedImage(for: url("s0.png")) == nil)
    }
}
