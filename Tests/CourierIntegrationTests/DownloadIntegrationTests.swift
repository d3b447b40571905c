import Courier
import Foundation
import Testing

private struct FlakyRecord: Decodable, Sendable {
    let count: Int
    let ranges: [String?]
}

/// The bytes the file server generates for `/bytes/N`: byte i is i % 251.
private func expectedPattern(_ size: Int) -> Data {
    Data((0..<size).map { UInt8($0 % 251) })
}

@Suite(
    "Downloads against the file server", .enabled(if: LocalServers.files != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct DownloadIntegrationTests {
    private let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    @Test("a cut connection is resumed with Range, and the file is exact", arguments: TransportKind.allCases)
    func resumesWithRange(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.files)
        let key = UUID().uuidString
        let size = 3_000_000
        let file = try await client.download(
            Request.get("flaky/\(size)", query: ["key": key, "cut": "1000000"], as: Data.self),
            to: folder.appendingPathComponent("resumed.bin")
        ).file()

        let record = try await client.send(.get("requests", query: ["key": key], as: FlakyRecord.self))
        #expect(try Data(contentsOf: file) == expectedPattern(size))
        #expect(record.count == 2)
        #expect(record.ranges.first == .some(nil))
        #expect(record.ranges.last??.hasPrefix("bytes=") == true && record.ranges.last != "bytes=0-")
    }

    @Test("a server that ignores Range is read again from zero, never appended", arguments: TransportKind.allCases)
    func restartsWhenRangeIgnored(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.files)
        let key = UUID().uuidString
        let size = 2_000_000
        let file = try await client.download(
            Request.get("flaky/\(size)", query: ["key": key, "cut": "700000", "norange": "1"], as: Data.self),
            to: folder.appendingPathComponent("restarted.bin")
        ).file()

        let record = try await client.send(.get("requests", query: ["key": key], as: FlakyRecord.self))
        let data = try Data(contentsOf: file)
        #expect(data.count == size && data == expectedPattern(size))
        #expect(record.count == 2)
    }

    @Test("a gzip bomb stops at the size limit with a typed error", arguments: TransportKind.allCases)
    func gzipBomb(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.files)
        let small = APIClient(
            baseURL: client.baseURL, transport: kind.make(maximumResponseSize: 8 << 20)
        )
        let error = try #require(
            await #expect(throws: APIError.self) { try await small.send(.get("gzip-bomb", as: Data.self)) })
        let download = try #require(
            await #expect(throws: APIError.self) {
                try await client.download(
                    Request.get("gzip-bomb", as: Data.self), to: folder.appendingPathComponent("bomb"),
                    options: DownloadOptions(maximumSize: 8 << 20)
                ).file()
            })

        #expect(error.kind == .transport(.responseTooLarge))
        #expect(download.kind == .transport(.responseTooLarge))
    }

    @Test("a hostile suggested name lands inside the folder", arguments: TransportKind.allCases)
    func hostileName(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.files)
        let file = try await client.download(
            Request.get("named", query: ["filename": "../../../etc/cron.d/evil"], as: Data.self), into: folder
        ).file()

        #expect(file.path == folder.appendingPathComponent("evil").path)
    }
}

@Suite(
    "Large downloads", .enabled(if: LocalServers.files != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(3))
)
struct LargeDownloadTests {
    @Test(
        "a 1 GiB download is exact in size and grows the process by less than 64 MB", arguments: TransportKind.defaults)
    func gigabyte(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.files)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-1g-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let size: Int64 = 1 << 30

        let baseline = ProcessMemory.residentBytes() ?? 0
        ProcessMemory.resetPeak()
        let download = client.download(Request.get("bytes/\(size)", as: Data.self), to: destination)
        var last: DownloadProgress?
        for await progress in download.progress { last = progress }
        let file = try await download.file()
        let peak = ProcessMemory.peakBytes() ?? 0

        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.size] as? NSNumber)?.int64Value == size)
        #expect(last?.bytesExpected == size)
        let handle = try FileHandle(forReadingFrom: file)
        try handle.seek(toOffset: UInt64(size) - 251)
        #expect(try handle.read(upToCount: 251) == Data((0..<251).map { UInt8((Int(size) - 251 + $0) % 251) }))
        try handle.close()
        if ProcessMemory.isAvailable {
            let growth = peak - baseline
            #expect(growth < 64 << 20, "peak grew by \(growth >> 20) MiB")
        }
    }

    // Size limits and progress: timing and disk-heavy, so they run here, alone, with the large ones.

    private let limitFolder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-limit-\(UUID())")

    private struct Sent: Decodable { let sent: Int? }

    /// How many bytes the files server sent for `key` on `/chunked`.
    private func sentBytes(_ key: String) async throws -> Int {
        let client = APIClient(baseURL: try #require(LocalServers.files), transport: CurlTransport())
        return try await client.send(.get("requests", query: ["key": key], as: Sent.self)).sent ?? 0
    }

    @Test(
        "a download over its 1 MiB limit stops at once, with or without a Content-Length",
        arguments: TransportKind.allCases, ["bytes/1000000000", "chunked/1000000000"])
    func limit(kind: TransportKind, path: String) async throws {
        let client = kind.client(LocalServers.files)
        let seen = Locked<[DownloadProgress]>([])
        try FileManager.default.createDirectory(at: limitFolder, withIntermediateDirectories: true)
        let destination = limitFolder.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: limitFolder) }

        let key = "limit-\(UUID())"
        let start = ContinuousClock.now
        let download = client.download(
            Request.get(Path(stringLiteral: path), query: ["key": key], as: Data.self), to: destination,
            options: DownloadOptions(maximumSize: 1 << 20, timeout: .seconds(30)))
        let watcher = Task { for await progress in download.progress { seen.withLock { $0.append(progress) } } }
        let error = await #expect(throws: APIError.self) { try await download.file() }
        await watcher.value

        #expect(error?.kind == .transport(.responseTooLarge), "\(String(describing: error))")
        // Stopped at the limit, not after the whole gigabyte (6 to 9 s before the fix, on an idle
        // machine): what the server sent, below, pins it; this bound only tells an end from a hang,
        // since other processes may be burning both cores.
        #expect(ContinuousClock.now - start < .seconds(45))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        if path.hasPrefix("chunked") {
            #expect(seen.withLock { $0.contains { $0.bytesReceived > 0 } }, "progress never moved")
            // What the server managed to send before the connection closed. CurlTransport stops the
            // transfer in its write callback: socket buffers and in-flight pieces, never the
            // gigabyte. URLSession keeps reading after its task is cancelled (tens to hundreds of MB
            // here, a known gap of FoundationNetworking's, in RELIABILITY.md): Courier has stopped
            // taking the body, but the network does not stop at once.
            if kind.isCurl {
                try await Task.sleep(for: .milliseconds(300))
                let sent = try await sentBytes(key)
                #expect(sent < 16 << 20, "the server sent \(sent) bytes against a 1 MiB limit")
            }
        }
    }

}

/// Bounded resumption against servers that never let a download finish. Wall-clock assertions:
/// `scripts/test` runs this suite in its serial latency pass (its name ends in `LatencyTests`).
@Suite(
    "Download resumption bounds", .enabled(if: LocalServers.files != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct ResumptionLatencyTests {
    private struct Requests: Decodable { let count: Int }

    private func requests(_ key: String) async throws -> Int {
        let client = APIClient(baseURL: try #require(LocalServers.files), transport: CurlTransport())
        return try await client.send(.get("requests", query: ["key": key], as: Requests.self)).count
    }

    /// Downloads `trickle/size` (the server sends `step` bytes per connection, then drops it) and
    /// returns the error it must end with.
    private func trickle(
        _ kind: TransportKind, size: Int, step: Int = 1, pace: Double = 0, key: String,
        options: DownloadOptions = DownloadOptions()
    ) async -> APIError? {
        let client = kind.client(LocalServers.files)
        return await #expect(throws: APIError.self) {
            try await client.download(
                Request.get(
                    Path(stringLiteral: "trickle/\(size)"), query: ["key": key, "step": "\(step)", "pace": "\(pace)"],
                    as: Data.self),
                to: FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(key)"), options: options
            ).file()
        }
    }

    @Test(
        "a server that sends a byte per connection and closes is given up on after a few resumptions",
        arguments: TransportKind.allCases)
    func trickleGivenUp(transport kind: TransportKind) async throws {
        let key = "trickle-\(UUID())"
        let start = ContinuousClock.now

        let error = await trickle(kind, size: 1_000_000, key: key)

        #expect(error?.kind == .transport(.connectionLost))
        // The first attempt and three fruitless resumptions, with 0.1 + 0.2 + 0.4 s of backoff.
        #expect(try await requests(key) == 4)
        #expect(ContinuousClock.now - start < .seconds(45))
    }

    @Test("a download's deadline covers every resumption, however much each brings", arguments: TransportKind.allCases)
    func deadlineCoversResumptions(transport kind: TransportKind) async throws {
        let start = ContinuousClock.now
        let key = "deadline-\(UUID())"

        // 16 MB (streamed by both transports, so every attempt gains 70 KB), 10 ms per connection:
        // more than two seconds of productive resumptions for a one-second deadline.
        let error = await trickle(
            kind, size: 16_000_000, step: 70_000, pace: 0.01, key: key,
            options: DownloadOptions(timeout: .seconds(1), maximumResumptions: .max))

        #expect(error?.kind == .transport(.deadlineExceeded))
        // Stopped by the deadline, not by the end of the body (229 connections), whatever the
        // machine's load; the time bound only tells an end from a hang.
        #expect(try await requests(key) < 200)
        #expect(ContinuousClock.now - start < .seconds(45))
    }

    @Test("resumptions stop at their cap even when each brings enough", arguments: TransportKind.allCases)
    func resumptionCap(transport kind: TransportKind) async throws {
        let key = "cap-\(UUID())"

        let error = await trickle(
            kind, size: 10_000_000, step: 100_000, key: key, options: DownloadOptions(maximumResumptions: 5))

        #expect(error?.kind == .transport(.connectionLost))
        #expect(try await requests(key) == 6)
    }
}

/// How soon a download's progress moves: a wall-clock assertion, run in the serial latency pass
/// (its name ends in `LatencyTests`).
@Suite(
    "Download progress latency", .serialized,
    .enabled(if: LocalServers.files != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct DownloadProgressLatencyTests {
    private let limitFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-progress-\(UUID())")

    @Test("a body of unknown size that URLSession buffers on disk reports progress as it arrives")
    func progressWhileBufferedOnDisk() async throws {
        let client = TransportKind.urlSession.client(LocalServers.files)
        let firstMove = Locked<ContinuousClock.Instant?>(nil)
        try FileManager.default.createDirectory(at: limitFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: limitFolder) }
        // 20 MiB at 10 MiB/s: the transfer takes two seconds, reading the finished file back a fraction.
        let size: Int64 = 20 << 20

        let start = ContinuousClock.now
        let download = client.download(
            Request.get(Path(stringLiteral: "chunked/\(size)"), query: ["pace": "0.1"], as: Data.self),
            to: limitFolder.appendingPathComponent("unknown-size"))
        let watcher = Task {
            for await progress in download.progress where progress.bytesReceived > 0 {
                firstMove.withLock { $0 = $0 ?? .now }
            }
        }
        let file = try await download.file()
        let total = ContinuousClock.now - start
        await watcher.value

        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64 == size)
        // Progress that only moves while the finished file is read back comes at the very end.
        let moved = try #require(firstMove.withLock { $0 }, "progress never moved") - start
        #expect(moved < total / 2, "the first progress came after \(moved) of \(total)")
    }
}
