import Courier
import Foundation

#if os(Linux)
    /// glibc's `malloc_trim`, which the Glibc module does not export.
    @_silgen_name("malloc_trim")
    private func glibcMallocTrim(_ pad: Int) -> Int32
#endif

/// The process's memory as Linux reports it; peaks can be reset between measurements.
enum Memory {
    /// Resets the peak (`VmHWM`) to the current resident size; `false` where that is impossible.
    /// Memory freed by earlier runs goes back to the system first (`malloc_trim`), so a run's
    /// growth is not hidden by what the allocator kept from the one before.
    static func resetPeak() -> Bool {
        #if os(Linux)
            _ = glibcMallocTrim(0)
        #endif
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// A field of `/proc/self/status` in megabytes (`VmHWM`, `VmRSS`).
    static func megabytes(_ field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Double(digits).map { $0 / 1024 }
        }
        return nil
    }
}

/// Runs `operation` `count` times, one at a time, and measures runs per second, CPU per run and
/// how far the resident memory's peak rose above where it stood before.
func measureRuns(count: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Sample {
    let canMeasure = Memory.resetPeak()
    let before = Memory.megabytes("VmRSS")
    let cpuBefore = Clock.cpuSeconds()
    let start = ContinuousClock.now
    for _ in 0..<count { try await operation() }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let growth = canMeasure ? Memory.megabytes("VmHWM").flatMap { peak in before.map { peak - $0 } } : nil
    return Sample(
        requestsPerSecond: Double(count) / seconds,
        cpuMicrosecondsPerRequest: (Clock.cpuSeconds() - cpuBefore) / Double(count) * 1e6, newConnections: nil,
        peakGrowthMegabytes: growth)
}

extension Implementation {
    /// Whole runs measured one at a time, with the memory they grow by.
    static func runs(_ name: String, _ operation: @escaping @Sendable () async throws -> Void) -> Implementation {
        Implementation(name: name) { count, _, _ in try await measureRuns(count: count, operation) }
    }
}

/// A large body fetched to a file on disk (the baseline) and read as a stream piece by piece,
/// over one transport.
func streamScenario(_ transport: String, client: APIClient, rounds: Int) -> Scenario {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("stream.bin")
    return Scenario(
        name: "large body (stream.bin), \(transport)", count: rounds, concurrency: 1,
        implementations: [
            .runs("download to disk") {
                let download = client.download(
                    Request<Data>(path: "stream.bin"), to: file, options: DownloadOptions(overwritesExisting: true))
                _ = try await download.file()
                try? FileManager.default.removeItem(at: file)
            },
            .runs("stream, piece by piece") {
                var total = 0
                // URLSession on Linux cannot pause the network: on a busy machine the reader can
                // fall more than the default 16 MiB behind, so the backlog may reach 64 MiB here
                // (the peak-memory column shows what it took).
                let options = StreamOptions(maximumBacklog: 64 << 20)
                for try await piece in try await client.stream(Request<Data>(path: "stream.bin"), options: options) {
                    total += piece.count
                }
                guard total > 0 else { throw BenchFailure.emptyStream }
            },
        ])
}

enum BenchFailure: Error {
    case emptyStream
}

/// In-memory pieces as an async sequence that never suspends: the parsers' own cost, no network.
struct Pieces: AsyncSequence, Sendable {
    typealias Element = Data
    let pieces: [Data]

    struct AsyncIterator: AsyncIteratorProtocol {
        var index = 0
        let pieces: [Data]
        mutating func next() async -> Data? {
            guard index < pieces.count else { return nil }
            defer { index += 1 }
            return pieces[index]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pieces: pieces) }

    /// `megabytes` of small events (`id`, `event` and a JSON `data` line, about 90 bytes each) in 64 KiB pieces.
    static func events(megabytes: Int) -> Pieces {
        var stream = Data()
        var index = 0
        while stream.count < megabytes << 20 {
            stream.append(
                contentsOf: "id: \(index)\nevent: token\ndata: {\"index\":\(index),\"text\":\"hello\"}\n\n".utf8)
            index += 1
        }
        return Pieces(
            pieces: stride(from: 0, to: stream.count, by: 65_536).map {
                stream.subdata(in: $0..<Swift.min($0 + 65_536, stream.count))
            })
    }
}

/// Server-Sent Events parsing against plain line splitting of the same bytes.
func eventParsingScenario(megabytes: Int, rounds: Int) -> Scenario {
    // Made on first use (the warm-up), so a run that skips this scenario never pays for it.
    let made = Locked<Pieces?>(nil)
    let events: @Sendable () -> Pieces = {
        made.withLock { made in
            if let made { return made }
            let pieces = Pieces.events(megabytes: megabytes)
            made = pieces
            return pieces
        }
    }
    return Scenario(
        name: "parse \(megabytes) MB of small events", count: rounds, concurrency: 1,
        implementations: [
            .runs("line splitting") {
                var count = 0
                for try await _ in events().lines() { count += 1 }
                guard count > 0 else { throw BenchFailure.emptyStream }
            },
            .runs("Server-Sent Events") {
                var count = 0
                for try await _ in events().serverSentEvents() { count += 1 }
                guard count > 0 else { throw BenchFailure.emptyStream }
            },
        ])
}
