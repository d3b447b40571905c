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
        "a 1 GiB download is exact in size and grows the process by less than 64 MB", arguments: TransportKind.allCases)
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
}
