import Courier
import Foundation
import Testing

/// A secret placed in every request of the matrix; it must never appear in an error or a log line.
private let sentinel = "S3NTINEL-fault-7f3a"

/// What a row of the matrix expects.
enum FaultOutcome: Sendable, CustomStringConvertible {
    case failure(TransportFailure)
    case invalidRequest
    case status(Int)
    case body(String)

    var description: String {
        switch self {
        case .failure(let failure): "transport(.\(failure))"
        case .invalidRequest: "invalidRequest"
        case .status(let code): "status \(code)"
        case .body(let text): "200 with body \"\(text)\""
        }
    }
}

/// One fault, the request that meets it, and what must happen.
struct FaultRow: Sendable, CustomTestStringConvertible {
    let fault: String
    let path: String
    var timeout: Duration = .seconds(3)
    var method: HTTPMethod = .get
    var headers: HTTPHeaders = [:]
    let expected: FaultOutcome
    /// What CurlTransport does instead, where it does better than URLSession can.
    var expectedWithCurl: FaultOutcome?
    /// URLSession's known gap, when the row pins its behaviour instead of the right one.
    var knownGap: String?
    /// How far past its deadline the call may end: one second, or two for the known gap whose
    /// quadratic header parsing competes with the deadline's wake-up for the two cores.
    var allowance: Duration = .seconds(1)

    var testDescription: String { fault }

    /// What must happen with this transport.
    func expected(with transport: TransportKind) -> FaultOutcome {
        transport.isCurl ? expectedWithCurl ?? expected : expected
    }
}

/// Appends one line per row to the file `COURIER_MATRIX_REPORT` names, for `scripts/reliability`.
enum MatrixReport {
    private static let lock = NSLock()

    static func record(_ row: FaultRow, transport: TransportKind, result: String, elapsed: Duration) {
        guard let path = ProcessInfo.processInfo.environment["COURIER_MATRIX_REPORT"] else { return }
        let seconds = String(
            format: "%.2f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let line: [String: String] = [
            "fault": row.fault, "transport": transport.rawValue,
            "expected": row.expected(with: transport).description, "result": result, "elapsed": seconds,
            "gap": transport == .urlSession ? row.knownGap ?? "" : "",
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else { return }
        lock.lock()
        defer { lock.unlock() }
        if let handle = FileHandle(forWritingAtPath: path)
            ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            }()
        {
            handle.seekToEndOfFile()
            handle.write(data + Data("\n".utf8))
            try? handle.close()
        }
    }
}

@Suite(
    "Fault matrix", .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .serialized,
    .timeLimit(.minutes(3))
)
struct FaultMatrixTests {
    static let rows: [FaultRow] = [
        FaultRow(fault: "reset in the middle of the body", path: "reset-mid-body", expected: .failure(.connectionLost)),
        FaultRow(
            fault: "Content-Length larger than the body, then close", path: "short-body",
            expected: .failure(.connectionLost)),
        FaultRow(fault: "a chunk size that is not hexadecimal", path: "bad-chunk", expected: .failure(.badResponse)),
        FaultRow(fault: "chunked without the final chunk", path: "no-final-chunk", expected: .failure(.connectionLost)),
        FaultRow(fault: "close without a byte", path: "close-empty", expected: .failure(.badResponse)),
        FaultRow(fault: "a garbage status line", path: "garbage-status", expected: .failure(.badResponse)),
        FaultRow(fault: "one 300 KB header", path: "huge-header", expected: .failure(.badResponse)),
        FaultRow(fault: "two different Content-Length values", path: "double-length", expected: .failure(.badResponse)),
        FaultRow(fault: "bytes beyond Content-Length", path: "extra-bytes", expected: .body("hello")),
        // Before the bombs: FoundationNetworking keeps working on a refused bomb for a while.
        FaultRow(
            fault: "a 50 MiB error page (8 MiB limit)", path: "huge-error", expected: .failure(.responseTooLarge)),
        FaultRow(
            fault: "Content-Encoding: gzip with a body that is not gzip", path: "bad-gzip",
            expected: .failure(.badResponse)),
        FaultRow(
            fault: "no response at all (0.5 s deadline)", path: "no-response", timeout: .milliseconds(500),
            expected: .failure(.deadlineExceeded)),
        FaultRow(
            fault: "headers, then a stall (0.5 s deadline)", path: "stall", timeout: .milliseconds(500),
            expected: .failure(.deadlineExceeded)),
        FaultRow(
            fault: "a body dripping a byte every 0.3 s (1 s deadline)", path: "drip", timeout: .seconds(1),
            expected: .failure(.deadlineExceeded)),
        FaultRow(fault: "a redirect loop", path: "redirect-loop", expected: .failure(.tooManyRedirects)),
        FaultRow(fault: "Location: file:///etc/passwd", path: "file-location", expected: .failure(.invalidRedirect)),
        FaultRow(fault: "a status the server sends (503)", path: "status/503", expected: .status(503)),
        FaultRow(
            fault: "CR/LF in a header value", path: "echo", headers: ["X-Evil": "a\r\nInjected: 1"],
            expected: .invalidRequest),
        FaultRow(
            fault: "a method that is not a token", path: "echo", method: HTTPMethod(rawValue: "GET /x"),
            expected: .invalidRequest),
        // 10 s: the outcome is the point, and on a machine whose cores other processes burn,
        // FoundationNetworking's delegate queue can take more than 3 s to hand over the first 8 MiB.
        FaultRow(
            fault: "a decompression bomb (256 MiB from 256 KB, 8 MiB limit)", path: "gzip-bomb", timeout: .seconds(10),
            expected: .failure(.responseTooLarge)),
        FaultRow(
            fault: "an endless body (8 MiB limit)", path: "endless", timeout: .seconds(10),
            expected: .failure(.responseTooLarge)),
        FaultRow(
            fault: "20,000 headers (2 s deadline)", path: "many-headers", timeout: .seconds(2),
            expected: .failure(.deadlineExceeded), expectedWithCurl: .body("ok"),
            knownGap: "FoundationNetworking parses headers in quadratic time (4 s of CPU); CurlTransport does not"
        ),
    ]

    private let base = LocalServers.faults ?? URL(string: "http://127.0.0.1:9")!

    @Test(
        "every fault ends in its typed outcome, within the deadline plus one second, without the secret",
        arguments: TransportKind.allCases, rows)
    func fault(transport kind: TransportKind, row: FaultRow) async throws {
        // A fresh transport per row: one row's leftovers (a bomb still inflating) must not decide another's.
        let transport = kind.make(timeout: .seconds(10), maximumResponseSize: 8 << 20)
        let expected = row.expected(with: kind)
        let log = LogLines()
        let client = APIClient(
            baseURL: base, transport: transport,
            middlewares: [LoggingMiddleware(sink: log, configuration: .init(logsBodies: true))]
        )
        var headers = row.headers
        headers[.authorization] = "Bearer \(sentinel)"
        let request = Request(
            method: row.method, path: Path(stringLiteral: row.path), query: ["api_key": sentinel], headers: headers,
            timeout: row.timeout, as: String.self
        )
        let start = ContinuousClock.now
        let result: String
        var printed: [String] = []
        do {
            let body = try await client.send(request)
            result = "200 with body \"\(body)\""
            if case .body(let expected) = expected {
                #expect(body == expected)
            } else {
                Issue.record("\(row.fault): got \(result)")
            }
        } catch let error as APIError {
            printed.append(error.description)
            switch error.kind {
            case .transport(let failure): result = "transport(.\(failure))"
            case .unacceptableStatus(let status): result = "status \(status.code)"
            case .invalidRequest: result = "invalidRequest"
            default: result = "\(error.kind)"
            }
            #expect(result == expected.description, "\(row.fault): \(error)")
        }
        let elapsed = ContinuousClock.now - start
        MatrixReport.record(row, transport: kind, result: result, elapsed: elapsed)

        #expect(elapsed < row.timeout + row.allowance, "\(row.fault) took \(elapsed)")
        for line in printed + log.all {
            #expect(!line.contains(sentinel), "\(row.fault): \(line)")
        }
    }

    @Test("a cross-port redirect arrives without Authorization, cookies or API keys", arguments: TransportKind.allCases)
    func crossPort(transport: TransportKind) async throws {
        let client = transport.client(base)
        let echo = try await client.send(
            .get(
                "cross-port",
                headers: [.authorization: "Bearer \(sentinel)", .cookie: "s=\(sentinel)", "X-Api-Key": sentinel],
                as: String.self)
        )
        let row = FaultRow(
            fault: "a redirect to another port (credentials stripped)", path: "cross-port",
            expected: .body("echo without credentials"))
        MatrixReport.record(
            row, transport: transport,
            result: echo.contains(sentinel) ? "credentials forwarded" : "200 with body \"echo without credentials\"",
            elapsed: .zero)

        #expect(echo.hasPrefix("GET /echo HTTP/1.1"))
        #expect(!echo.contains(sentinel))
    }

    @Test(
        "a POST failing with 500 reaches the server exactly once through the retry middleware",
        arguments: TransportKind.allCases)
    func postOnce(transport: TransportKind) async throws {
        let key = UUID().uuidString
        let client = transport.client(
            base, middlewares: [RetryMiddleware(policy: RetryPolicy(backoff: .init(initial: .milliseconds(10))))])
        struct Count: Decodable { let count: Int }

        _ = try? await client.send(
            Request(method: .post, path: "status/500", query: ["key": key], body: .text("pay"), as: String.self))
        let count = try await client.send(.get("count", query: ["key": key], as: Count.self)).count
        MatrixReport.record(
            FaultRow(
                fault: "POST answered 500, with the retry middleware", path: "status/500",
                expected: .body("reached once")),
            transport: transport, result: count == 1 ? "200 with body \"reached once\"" : "reached \(count) times",
            elapsed: .zero)

        #expect(count == 1)
    }

    @Test(
        "1,000 in-flight requests cancelled at once all end with CancellationError within two seconds",
        arguments: TransportKind.allCases)
    func massCancellation(transport: TransportKind) async throws {
        let client = transport.client(base)
        let tasks = (0..<1_000).map { _ in
            Task { try await client.send(Request(path: "no-response", timeout: .seconds(30), as: String.self)) }
        }
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        for task in tasks { task.cancel() }
        var cancelled = 0
        for task in tasks {
            if case .failure(let error) = await task.result, error is CancellationError { cancelled += 1 }
        }
        let elapsed = ContinuousClock.now - start
        MatrixReport.record(
            FaultRow(
                fault: "1,000 in-flight requests cancelled", path: "no-response", expected: .body("all cancelled")),
            transport: transport,
            result: cancelled == 1_000 ? "200 with body \"all cancelled\"" : "\(cancelled) cancelled", elapsed: elapsed)

        #expect(cancelled == 1_000)
        #expect(elapsed < .seconds(2))
    }
}
