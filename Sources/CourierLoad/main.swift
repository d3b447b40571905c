// courier-load: the bounded load figures of docs/RELIABILITY.md, measured against local servers.
//
//   courier-load --files URL --faults URL --sink URL
//
// Prints a Markdown table, each load run with CurlTransport and with URLSessionTransport. Every
// loop is bounded in count and in time.
import Courier
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var files: URL
    var faults: URL
    var sink: URL

    static func parse(_ arguments: [String]) -> Options? {
        var values: [String: URL] = [:]
        var index = 0
        while index + 1 < arguments.count {
            values[arguments[index]] = URL(string: arguments[index + 1])
            index += 2
        }
        guard let files = values["--files"], let faults = values["--faults"], let sink = values["--sink"] else {
            return nil
        }
        return Options(files: files, faults: faults, sink: sink)
    }
}

enum Memory {
    static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return (line.split(separator: " ").dropFirst().compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }

    static var resident: Int { field("VmRSS") }
    static var peak: Int { field("VmHWM") }
    static func resetPeak() { _ = try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }
    static func megabytes(_ bytes: Int) -> String { String(format: "%.0f MB", Double(bytes) / 1_048_576) }
}

func seconds(_ duration: Duration) -> String {
    String(format: "%.2f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}

var rows: [(String, String, String)] = []

/// The transports the loads run with: a new one for each load.
enum Kind: String, CaseIterable {
    case curl = "CurlTransport"
    case urlSession = "URLSessionTransport"

    func make() -> any HTTPTransport {
        switch self {
        case .curl: CurlTransport()
        case .urlSession: URLSessionTransport()
        }
    }
}

@MainActor func concurrentGETs(_ count: Int, _ options: Options, _ kind: Kind) async {
    let client = APIClient(baseURL: options.files, transport: kind.make())
    let baseline = Memory.resident
    Memory.resetPeak()
    let start = ContinuousClock.now
    let failures = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<count { group.addTask { (try? await client.send(.get("bytes/500", as: Data.self))) == nil } }
        var failures = 0
        for await failed in group where failed { failures += 1 }
        return failures
    }
    let elapsed = ContinuousClock.now - start
    rows.append(
        (
            "\(count) concurrent GETs (500 B)", kind.rawValue,
            "\(failures) failures, \(seconds(elapsed)), peak RSS +\(Memory.megabytes(Memory.peak - baseline))"
        ))
}

func cancellation(_ count: Int, _ options: Options, _ kind: Kind) async -> (Duration, Int) {
    let client = APIClient(baseURL: options.faults, transport: kind.make())
    let tasks = (0..<count).map { _ in
        Task { try await client.send(Request(path: "no-response", timeout: .seconds(60), as: Data.self)) }
    }
    try? await Task.sleep(for: .seconds(1))
    let start = ContinuousClock.now
    for task in tasks { task.cancel() }
    var cancelled = 0
    for task in tasks {
        if case .failure(let error) = await task.result, error is CancellationError { cancelled += 1 }
    }
    return (ContinuousClock.now - start, cancelled)
}

@MainActor func largeTransfers(_ options: Options, _ kind: Kind) async throws {
    let client = APIClient(baseURL: options.files, transport: kind.make())
    let destination = FileManager.default.temporaryDirectory.appendingPathComponent("courier-load-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: destination) }
    var baseline = Memory.resident
    Memory.resetPeak()
    var start = ContinuousClock.now
    _ = try await client.download(Request.get("bytes/\(1 << 30)", as: Data.self), to: destination).file()
    rows.append(
        (
            "1 GiB download to disk", kind.rawValue,
            "\(seconds(ContinuousClock.now - start)), peak RSS +\(Memory.megabytes(Memory.peak - baseline))"
        ))

    let sink = APIClient(baseURL: options.sink, transport: kind.make())
    baseline = Memory.resident
    Memory.resetPeak()
    start = ContinuousClock.now
    struct Received: Decodable { let bytes: Int }
    let received = try await sink.send(
        Request(method: .put, path: "upload", body: .file(destination), as: Received.self))
    rows.append(
        (
            "1 GiB upload from a file", kind.rawValue,
            "\(received.bytes == 1 << 30 ? "arrived whole" : "**\(received.bytes) bytes arrived**"), "
                + "\(seconds(ContinuousClock.now - start)), peak RSS +\(Memory.megabytes(Memory.peak - baseline))"
        ))
}

guard let options = Options.parse(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(Data("usage: courier-load --files URL --faults URL --sink URL\n".utf8))
    exit(64)
}
for kind in Kind.allCases {
    await concurrentGETs(500, options, kind)
    await concurrentGETs(2_000, options, kind)
    let before = Memory.resident
    let (firstDrain, firstCancelled) = await cancellation(10_000, options, kind)
    let afterFirst = Memory.resident
    let (secondDrain, secondCancelled) = await cancellation(10_000, options, kind)
    try? await Task.sleep(for: .seconds(1))
    let afterSecond = Memory.resident
    rows.append(
        (
            "cancelling 10,000 in-flight requests (twice)", kind.rawValue,
            "\(firstCancelled) and \(secondCancelled) cancelled; drained in \(seconds(firstDrain)) and \(seconds(secondDrain)); "
                + "RSS \(Memory.megabytes(before)) → \(Memory.megabytes(afterFirst)) → \(Memory.megabytes(afterSecond))"
        ))
    do {
        try await largeTransfers(options, kind)
    } catch {
        rows.append(("1 GiB transfers", kind.rawValue, "failed: \(error)"))
    }
}
print("| load | transport | result |")
print("|---|---|---|")
for (name, transport, result) in rows { print("| \(name) | \(transport) | \(result) |") }
