// courier-bench: Courier against raw URLSession on the same local server, side by side in one run.
//
//   courier-bench --base http://127.0.0.1:PORT [--status http://127.0.0.1:PORT/nginx_status]
//                 [--quick] [--rounds N] [--output results.json] [--only TEXT] [--implementation TEXT]... (repeatable)
//                 [--ceiling PATH] [--tls-base https://127.0.0.1:PORT --h2-base https://127.0.0.1:PORT
//                 --ca CA.pem] [--ws-base http://127.0.0.1:PORT --http-echo-base http://127.0.0.1:PORT
//                 [--ws-python PYTHON]]
//
// The server serves /small.json (~500 B), /page.json (25 iTunes-style results, ~30 KB) and
// /1mb.bin. Implementations are interleaved round by round (A B A B …) after a warm-up; the table
// reports medians with min and max, and ratios paired round by round. scripts/bench runs it
// against nginx; scripts/test runs --quick against the file server to check it still works.
import Courier
import CourierImages
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Settings {
    var base = URL(string: "http://127.0.0.1:8080")!
    var status: URL?
    var quick = false
    var rounds = 5
    var output: String?
    /// Runs only the scenarios whose name contains this text (for profiling one of them).
    var only: String?
    /// Runs only the implementations whose name contains one of these texts (or, written `=NAME`,
    /// is NAME); the flag may be given more than once.
    var implementations: [String] = []
    /// The C libcurl program (`scripts/bench_ceiling.c`), measured as the ceiling when given.
    var ceiling: String?
    /// The same files over TLS, HTTP/1.1 only and with HTTP/2, and the CA that signed the server's
    /// certificate: the TLS scenarios run when all three are given.
    var tlsBase: URL?
    var http2Base: URL?
    var authorities: String?
    /// The WebSocket server (scripts/servers/websocket.py) and the HTTP echo server
    /// (scripts/servers/httpecho.py): the WebSocket scenarios run when both are given.
    var webSocketBase: URL?
    var httpEchoBase: URL?
    /// A Python with the `websockets` package, to run scripts/bench_ws.py as the outside reference.
    var webSocketReference: String?

    static func parse(_ arguments: [String]) -> Settings? {
        var settings = Settings()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch argument {
            case "--base":
                settings.base = value.flatMap(URL.init(string:)) ?? settings.base
                index += 1
            case "--status":
                settings.status = value.flatMap(URL.init(string:))
                index += 1
            case "--rounds":
                settings.rounds = value.flatMap(Int.init) ?? settings.rounds
                index += 1
            case "--output":
                settings.output = value
                index += 1
            case "--only":
                settings.only = value
                index += 1
            case "--implementation":
                if let value { settings.implementations.append(value) }
                index += 1
            case "--ceiling":
                settings.ceiling = value
                index += 1
            case "--tls-base":
                settings.tlsBase = value.flatMap(URL.init(string:))
                index += 1
            case "--h2-base":
                settings.http2Base = value.flatMap(URL.init(string:))
                index += 1
            case "--ca":
                settings.authorities = value
                index += 1
            case "--ws-base":
                settings.webSocketBase = value.flatMap(URL.init(string:))
                index += 1
            case "--http-echo-base":
                settings.httpEchoBase = value.flatMap(URL.init(string:))
                index += 1
            case "--ws-python":
                settings.webSocketReference = value
                index += 1
            case "--quick": settings.quick = true
            default: return nil
            }
            index += 1
        }
        if settings.quick { settings.rounds = 2 }
        return settings
    }
}

/// One measured run of one implementation.
struct Sample {
    let requestsPerSecond: Double
    let cpuMicrosecondsPerRequest: Double
    let newConnections: Int?
    /// How far the resident memory's peak rose during the run, where it is measured.
    var peakGrowthMegabytes: Double? = nil
    /// The process's context switches (voluntary and not, every thread) per request.
    var contextSwitchesPerRequest: Double? = nil
}

enum Clock {
    static func usage() -> rusage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }

    static func cpuSeconds() -> Double {
        let usage = usage()
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    /// Context switches of the whole process so far, voluntary and not (every thread).
    static func contextSwitches() -> Int {
        let usage = usage()
        return usage.ru_nvcsw + usage.ru_nivcsw
    }

    static func peakResidentMegabytes() -> Double {
        let usage = usage()
        return Double(usage.ru_maxrss) / 1024
    }
}

/// nginx's stub_status "accepts" counter: new TCP connections.
func acceptedConnections(_ status: URL?) async -> Int? {
    guard let status, let (data, _) = try? await URLSession.shared.data(from: status),
        let text = String(data: data, encoding: .utf8)
    else { return nil }
    let lines = text.split(separator: "\n")
    guard lines.count >= 3 else { return nil }
    return lines[2].split(separator: " ").first.flatMap { Int($0) }
}

/// Runs `count` operations with `concurrency` in flight and measures them. Each of `concurrency`
/// worker tasks runs operations one after another, so the harness adds no task per operation.
func measureRequests(
    count: Int, concurrency: Int, status: URL?, executor: LoopExecutor? = nil,
    _ operation: @escaping @Sendable () async throws -> Void
)
    async throws -> Sample
{
    let connectionsBefore = await acceptedConnections(status)
    let cpuBefore = Clock.cpuSeconds()
    let switchesBefore = Clock.contextSwitches()
    let start = ContinuousClock.now
    let claimed = Locked(0)
    try await withThrowingTaskGroup(of: Void.self) { group in
        let worker: @Sendable () async throws -> Void = {
            while claimed.withLock({ claimed in
                claimed += 1
                return claimed <= count
            }) {
                try await operation()
            }
        }
        for _ in 0..<min(concurrency, count) {
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
                let executor = executor?.executor
            {
                group.addTask(executorPreference: executor, operation: worker)
            } else {
                group.addTask(operation: worker)
            }
        }
        try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let cpu = Clock.cpuSeconds() - cpuBefore
    let switches = Clock.contextSwitches() - switchesBefore
    let connectionsAfter = await acceptedConnections(status)
    // The status request may itself open a connection: the count can be one too high, never too low.
    let connections = connectionsBefore.flatMap { before in connectionsAfter.map { max(0, $0 - before) } }
    return Sample(
        requestsPerSecond: Double(count) / seconds, cpuMicrosecondsPerRequest: cpu / Double(count) * 1e6,
        newConnections: connections, contextSwitchesPerRequest: Double(switches) / Double(count))
}

struct Page: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        let trackId: Int?
        let trackName: String?
        let artistName: String?
        let trackPrice: Double?
    }
    let resultCount: Int
    let results: [Item]
}

/// One way of doing a scenario's requests, measured for a whole round at a time.
struct Implementation {
    let name: String
    let measure: (_ count: Int, _ concurrency: Int, _ status: URL?) async throws -> Sample

    /// Operations run by this process, one per request.
    static func requests(
        _ name: String, on executor: LoopExecutor? = nil, _ operation: @escaping @Sendable () async throws -> Void
    ) -> Implementation {
        Implementation(name: name) { count, concurrency, status in
            try await measureRequests(
                count: count, concurrency: concurrency, status: status, executor: executor, operation)
        }
    }

    /// A program of its own that does the whole round and reports its time and CPU.
    static func program(
        _ name: String, path: String, url: URL, authorities: String? = nil, leadingArguments: [String] = []
    ) -> Implementation {
        Implementation(name: name) { count, concurrency, status in
            let connectionsBefore = await acceptedConnections(status)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments =
                leadingArguments + [url.absoluteString, String(count), String(concurrency)]
                + (authorities.map { [$0] } ?? [])
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let fields = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
                Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            // Seconds, CPU seconds, and (from the C program) context switches.
            guard process.terminationStatus == 0, fields.count >= 2, fields[0] > 0 else {
                throw ProgramFailure(path: path, status: process.terminationStatus)
            }
            let connectionsAfter = await acceptedConnections(status)
            return Sample(
                requestsPerSecond: Double(count) / fields[0],
                cpuMicrosecondsPerRequest: fields[1] / Double(count) * 1e6,
                newConnections: connectionsBefore.flatMap { before in connectionsAfter.map { max(0, $0 - before) } },
                contextSwitchesPerRequest: fields.count > 2 ? fields[2] / Double(count) : nil)
        }
    }
}

extension Implementation {
    /// The C program's round of GETs, then `decode` run on the same body once per request in this
    /// process at the same concurrency: what a GET plus the decoder's own work costs with nothing
    /// between them. Its CPU per request is the sum of the two; its rate is one request's time
    /// plus one decode's.
    static func programThenDecode(
        _ name: String, path: String, url: URL, decode: @escaping @Sendable (Data) throws -> Void
    ) -> Implementation {
        let program = Implementation.program(name, path: path, url: url)
        return Implementation(name: name) { count, concurrency, status in
            let fetched = try await program.measure(count, concurrency, status)
            let body = try await rawGET(url)
            let decoded = try await measureRequests(count: count, concurrency: concurrency, status: nil) {
                try decode(body)
            }
            return Sample(
                requestsPerSecond: 1 / (1 / fetched.requestsPerSecond + 1 / decoded.requestsPerSecond),
                cpuMicrosecondsPerRequest: fetched.cpuMicrosecondsPerRequest + decoded.cpuMicrosecondsPerRequest,
                newConnections: fetched.newConnections, contextSwitchesPerRequest: fetched.contextSwitchesPerRequest)
        }
    }
}

struct ProgramFailure: Error, CustomStringConvertible {
    let path: String
    let status: Int32
    var description: String { "\(path) failed with status \(status)" }
}

/// A scenario: named implementations measured against each other.
struct Scenario {
    let name: String
    let count: Int
    let concurrency: Int
    var implementations: [Implementation]
}

struct Row: Encodable {
    let scenario: String
    let implementation: String
    let medianPerSecond: Double
    let minPerSecond: Double
    let maxPerSecond: Double
    let ratioToBaseline: Double?
    let cpuMicrosecondsPerRequest: Double
    let newConnections: Int?
    let peakGrowthMegabytes: Double?
    let contextSwitchesPerRequest: Double?
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

guard let settings = Settings.parse(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(
        Data(
            "usage: courier-bench --base URL [--status URL] [--quick] [--rounds N] [--output FILE] [--only TEXT] [--implementation TEXT]... (repeatable) [--ceiling PATH] [--tls-base URL --h2-base URL --ca FILE] [--ws-base URL --http-echo-base URL [--ws-python PYTHON]]\n"
                .utf8))
    exit(64)
}

let scale = settings.quick ? 100 : 1
let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}()
let courier = APIClient(baseURL: settings.base, transport: URLSessionTransport())
let curlTransport = CurlTransport()
let courierCurl = APIClient(baseURL: settings.base, transport: curlTransport)
let courierCurlTwoLoops = APIClient(baseURL: settings.base, transport: CurlTransport(configuration: .init(loops: 2)))
let smallURL = settings.base.appendingPathComponent("small.json")
let pageURL = settings.base.appendingPathComponent("page.json")
let bigURL = settings.base.appendingPathComponent("1mb.bin")

struct BadStatus: Error, CustomStringConvertible {
    let url: URL
    let status: Int
    var description: String { "GET \(url) answered \(status)" }
}

/// Raw URLSession driven the way URLSessionTransport must drive it (a session delegate receiving
/// the body piece by piece on its queue), without Courier: what the delegate path costs by itself.
final class PieceDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked Sendable`: `pending` is touched only under `lock`.
    private let lock = NSLock()
    private var pending: [Int: (data: Data, continuation: CheckedContinuation<Data, any Error>)] = [:]

    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<Data, any Error>) {
        lock.lock()
        pending[task.taskIdentifier] = (Data(), continuation)
        lock.unlock()
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        pending[dataTask.taskIdentifier]?.data.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let entry = pending.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        if let error {
            entry?.continuation.resume(throwing: error)
        } else {
            entry?.continuation.resume(returning: entry?.data ?? Data())
        }
    }
}
let pieceDelegate = PieceDelegate()
let delegateSession: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    return URLSession(configuration: configuration, delegate: pieceDelegate, delegateQueue: queue)
}()

@Sendable func delegateGET(_ url: URL) async throws -> Data {
    try await withCheckedThrowingContinuation { continuation in
        pieceDelegate.start(delegateSession.dataTask(with: URLRequest(url: url)), continuation)
    }
}

@Sendable func rawGET(_ url: URL) async throws -> Data {
    let (data, response) = try await session.data(for: URLRequest(url: url))
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard status == 200 else { throw BadStatus(url: url, status: status) }
    return data
}

/// Answers every request with the same response, doing nothing else: Courier's own cost, alone.
struct FixedTransport: HTTPTransport {
    let response = HTTPResponse(
        status: .ok, headers: [.contentType: "application/json"], body: Data(#"{"ok": true}"#.utf8))
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
}
let stubbed = FixedTransport()
let noMiddleware = APIClient(baseURL: settings.base, transport: stubbed)
struct PassThrough: Middleware {
    func intercept(_ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse)
        async throws -> HTTPResponse
    { try await next(request) }
}
let threeMiddlewares = APIClient(
    baseURL: settings.base, transport: stubbed,
    middlewares: [PassThrough(), LoggingMiddleware(sink: nil), RetryMiddleware(budget: nil)])
struct Flag: Decodable, Sendable { let ok: Bool }
struct Parameters: Encodable, Sendable {
    let term = "jack johnson"
    let media = "music"
    let entity = "song"
    let country = "US"
    let limit = 25
    let offset = 50
    let lang = "en_us"
    let explicit = "Yes"
    let attribute = "artistTerm"
    let callback = "none"
}
let imageTransport = StubTransport().on(.get, "*") { _ in
    try await Task.sleep(for: .milliseconds(5))
    var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
    png.append(contentsOf: [0, 0, 1, 244, 0, 0, 2, 238, 8, 2, 0, 0, 0])
    return .response(body: png)
}
let loader = try ImageLoader(client: APIClient(baseURL: settings.base, transport: imageTransport))
let posterURL = URL(string: "https://image.tmdb.org/t/p/w500/poster.png")!
_ = try await loader.image(for: posterURL)
let coalesceCounter = Locked(0)
/// CurlTransport behind a response cache: every call a fresh hit (a route's time to live), or every
/// call revalidated (`.noCache`: a conditional GET answered 304 by nginx, the stored body reused).
let freshCache = APIClient(
    baseURL: settings.base, transport: curlTransport,
    middlewares: [ResponseCacheMiddleware(policy: .timeToLive(.seconds(3600)))])
let revalidatingCache = APIClient(
    baseURL: settings.base, transport: curlTransport, middlewares: [ResponseCacheMiddleware(policy: .noCache)])

/// The network implementations of a scenario: raw URLSession first (the baseline), Courier over
/// each transport, and the C ceiling when it was built.
func network(
    _ path: String, decode: Bool = false,
    raw: @escaping @Sendable (_ get: @Sendable (URL) async throws -> Data) async throws -> Void,
    courier request: @escaping @Sendable (APIClient) async throws -> Void
) -> [Implementation] {
    var implementations: [Implementation] = [
        .requests("URLSession", { try await raw(rawGET) }),
        .requests("URLSession, delegate (no Courier)", { try await raw(delegateGET) }),
        .requests("Courier, URLSessionTransport", { try await request(courier) }),
        .requests("Courier, CurlTransport", { try await request(courierCurl) }),
        .requests(
            "Courier, CurlTransport, callers on its executor", on: LoopExecutor(curlTransport),
            { try await request(courierCurl) }),
        .requests("Courier, CurlTransport, 2 loops", { try await request(courierCurlTwoLoops) }),
    ]
    if let ceiling = settings.ceiling {
        let url = settings.base.appendingPathComponent(path)
        implementations.append(
            decode
                ? .programThenDecode(
                    "libcurl from C + JSONDecoder (reference)", path: ceiling, url: url,
                    decode: { _ = try JSONDecoder().decode(Page.self, from: $0) })
                : .program("libcurl from C (ceiling)", path: ceiling, url: url))
    }
    return implementations
}

let plainScenarios: [Scenario] = [
    Scenario(
        name: "GET small JSON, sequential", count: 2_000 / scale, concurrency: 1,
        implementations: network(
            "small.json", raw: { _ = try await $0(smallURL) },
            courier: { _ = try await $0.send(.get("small.json", as: Data.self)) })),
    Scenario(
        name: "GET small JSON, 16 concurrent", count: 5_000 / scale, concurrency: 16,
        implementations: network(
            "small.json", raw: { _ = try await $0(smallURL) },
            courier: { _ = try await $0.send(.get("small.json", as: Data.self)) })),
    Scenario(
        name: "GET + decode 25 results, sequential", count: 1_000 / scale, concurrency: 1,
        implementations: network(
            "page.json", decode: true,
            raw: { _ = try JSONDecoder().decode(Page.self, from: try await $0(pageURL)) },
            courier: { _ = try await $0.send(.get("page.json", as: Page.self)) })),
    Scenario(
        name: "GET + decode 25 results, 16 concurrent", count: 2_000 / scale, concurrency: 16,
        implementations: network(
            "page.json", decode: true,
            raw: { _ = try JSONDecoder().decode(Page.self, from: try await $0(pageURL)) },
            courier: { _ = try await $0.send(.get("page.json", as: Page.self)) })),
    Scenario(
        name: "GET 1 MB", count: 200 / scale, concurrency: 1,
        implementations: network(
            "1mb.bin", raw: { _ = try await $0(bigURL) },
            courier: { _ = try await $0.send(.get("1mb.bin", as: Data.self)) })),
    Scenario(
        name: "response cache, small JSON, sequential", count: 2_000 / scale, concurrency: 1,
        implementations: [
            .requests(
                "network round trip (CurlTransport, no cache)",
                { _ = try await courierCurl.send(.get("small.json", as: Data.self)) }),
            .requests("fresh hit", { _ = try await freshCache.send(.get("small.json", as: Data.self)) }),
            .requests(
                "revalidated hit (304)", { _ = try await revalidatingCache.send(.get("small.json", as: Data.self)) }),
        ]),
    Scenario(
        name: "pipeline alone (fixed transport)", count: 50_000 / scale, concurrency: 1,
        implementations: [
            .requests("no middleware, raw bytes", { _ = try await noMiddleware.send(.get("x", as: Data.self)) }),
            .requests("3 middlewares, raw bytes", { _ = try await threeMiddlewares.send(.get("x", as: Data.self)) }),
            .requests("no middleware, JSON decoded", { _ = try await noMiddleware.send(.get("x", as: Flag.self)) }),
        ]),
    Scenario(
        name: "query encoder, 10 items", count: 50_000 / scale, concurrency: 1,
        implementations: [.requests("QueryEncoder", { _ = try Query.encoding(Parameters()).items() })]),
    Scenario(
        name: "image loader", count: 50_000 / scale, concurrency: 1,
        implementations: [
            .requests("memory-cache hit", { _ = try await loader.image(for: posterURL) }),
            .requests(
                "100 coalesced loads",
                {
                    let number = coalesceCounter.withLock {
                        $0 += 1
                        return $0 / 100
                    }
                    let url = URL(string: "https://image.tmdb.org/t/p/w92/\(number).png")!
                    _ = try await loader.image(for: url)
                }
            ),
        ]),
    cookieJarScenario(scale: scale),
    manyInFlightScenario(base: settings.base, requests: settings.quick ? 1_000 : 10_000),
    streamScenario("CurlTransport", client: courierCurl, rounds: settings.quick ? 1 : 3),
    streamScenario("URLSessionTransport", client: courier, rounds: settings.quick ? 1 : 3),
    eventParsingScenario(megabytes: settings.quick ? 4 : 64, rounds: settings.quick ? 1 : 3),
]
/// The plain-HTTP scenarios, then the TLS ones and the WebSocket ones when their servers were given.
let scenarios = plainScenarios + tlsScenarios(settings, scale: scale) + webSocketScenarios(settings, scale: scale)

@MainActor func runBenchmarks() async throws {
    var rows: [Row] = []
    print("courier-bench: \(settings.rounds) rounds after a warm-up\(settings.quick ? " (quick)" : "")\n")
    print(
        "| scenario | implementation | median req/s | min–max | ratio (paired) | CPU µs/req | ctx sw/req | new TCP "
            + "| peak RSS + |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for var scenario in scenarios where settings.only.map(scenario.name.contains) ?? true {
        if !settings.implementations.isEmpty {
            // "=NAME" keeps only the implementation named exactly so (for profiling one of them).
            scenario.implementations = scenario.implementations.filter { implementation in
                settings.implementations.contains { wanted in
                    wanted.hasPrefix("=")
                        ? implementation.name == wanted.dropFirst() : implementation.name.contains(wanted)
                }
            }
        }
        for implementation in scenario.implementations {
            _ = try await implementation.measure(max(1, scenario.count / 10), scenario.concurrency, nil)
        }
        var samples = Array(repeating: [Sample](), count: scenario.implementations.count)
        for _ in 0..<settings.rounds {
            for (index, implementation) in scenario.implementations.enumerated() {
                samples[index].append(
                    try await implementation.measure(scenario.count, scenario.concurrency, settings.status))
            }
        }
        for (index, implementation) in scenario.implementations.enumerated() {
            let throughput = samples[index].map(\.requestsPerSecond)
            let ratio: Double? =
                index == 0
                ? nil
                : median(zip(samples[index], samples[0]).map { $0.requestsPerSecond / $1.requestsPerSecond })
            let connections = samples[index].compactMap(\.newConnections)
            let row = Row(
                scenario: scenario.name, implementation: implementation.name, medianPerSecond: median(throughput),
                minPerSecond: throughput.min() ?? 0, maxPerSecond: throughput.max() ?? 0, ratioToBaseline: ratio,
                cpuMicrosecondsPerRequest: median(samples[index].map(\.cpuMicrosecondsPerRequest)),
                newConnections: connections.isEmpty ? nil : connections.reduce(0, +) / connections.count,
                peakGrowthMegabytes: samples[index].compactMap(\.peakGrowthMegabytes).max(),
                contextSwitchesPerRequest: {
                    let values = samples[index].compactMap(\.contextSwitchesPerRequest)
                    return values.isEmpty ? nil : median(values)
                }())
            rows.append(row)
            let ratioText = ratio.map { String(format: "%.2f×", $0) } ?? "baseline"
            let connectionText = row.newConnections.map(String.init) ?? "–"
            let memoryText = row.peakGrowthMegabytes.map { String(format: "%.0f MB", $0) } ?? "–"
            let switchesText = row.contextSwitchesPerRequest.map { String(format: "%.2f", $0) } ?? "–"
            print(
                "| \(scenario.name) | \(implementation.name) | \(String(format: row.medianPerSecond < 100 ? "%.2f" : "%.0f", row.medianPerSecond)) | "
                    + "\(String(format: row.medianPerSecond < 100 ? "%.2f–%.2f" : "%.0f–%.0f", row.minPerSecond, row.maxPerSecond)) | \(ratioText) | "
                    + "\(String(format: "%.1f", row.cpuMicrosecondsPerRequest)) | \(switchesText) | \(connectionText) | "
                    + "\(memoryText) |")
        }
    }
    print("\npeak RSS: \(String(format: "%.0f", Clock.peakResidentMegabytes())) MB")
    if let output = settings.output {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(rows).write(to: URL(fileURLWithPath: output))
    }
}

do {
    try await runBenchmarks()
} catch {
    FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
    exit(1)
}
