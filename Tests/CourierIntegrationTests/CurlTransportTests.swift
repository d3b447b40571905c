import Courier
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(
    "CurlTransport against the fault server",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct CurlTransportTests {
    private let base = LocalServers.faults ?? URL(string: "http://127.0.0.1:9")!

    @Test("libcurl is loaded on this machine")
    func available() {
        #expect(CurlTransport.isAvailable)
        #expect(CurlTransport.libraryVersion?.hasPrefix("libcurl/") == true)
    }

    @Test("2,000 requests cancelled at random moments end cancelled or answered, and the transport stays healthy")
    func cancellationRace() async throws {
        let client = APIClient(baseURL: base, transport: CurlTransport())
        var generator = SystemRandomNumberGenerator()
        var outcomes = (answered: 0, cancelled: 0, other: [String]())
        for _ in 0..<2_000 {
            let task = Task { try await client.send(.get("ok", as: Data.self)) }
            // From before the transfer reaches the loop to after it completed (about 0.5 ms here).
            try? await Task.sleep(for: .microseconds(Int.random(in: 0..<1_500, using: &generator)))
            task.cancel()
            switch await task.result {
            case .success: outcomes.answered += 1
            case .failure(let error) where error is CancellationError: outcomes.cancelled += 1
            case .failure(let error): outcomes.other.append("\(error)")
            }
        }

        #expect(outcomes.other.isEmpty, "\(outcomes.other.prefix(3))")
        #expect(outcomes.answered + outcomes.cancelled == 2_000)
        // Both sides of the race were met.
        #expect(outcomes.cancelled > 0 && outcomes.answered > 0, "\(outcomes)")
        #expect(try await client.send(.get("ok", as: Data.self)) == Data(#"{"ok": true}"#.utf8))
    }

    @Test(
        "a GET on a keep-alive connection the server resets is sent again on a new one",
        arguments: TransportKind.allCases)
    func staleConnection(transport: TransportKind) async throws {
        let client = transport.client(base)

        let first = try await client.send(.get("close-next", as: String.self))
        let second = try await client.send(.get("close-next", as: String.self))

        #expect(first == "first")
        #expect(second == "first")
    }

    @Test("a body file that is a named pipe is refused at once and never holds up the loop's other calls")
    func namedPipeBody() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipe = folder.appendingPathComponent("body")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let client = APIClient(
            baseURL: try #require(LocalServers.httpbin), transport: CurlTransport(configuration: .init(loops: 1)))
        let upload = Task {
            try await client.send(
                Request(method: .post, path: "post", body: .file(pipe), timeout: .seconds(2), as: Data.self))
        }
        let unrelated = Task { try await client.send(Request(path: "get", timeout: .seconds(5), as: Data.self)) }
        // A writer, late, so that a loop blocked in open() (as it once was) comes back and the test ends.
        let writer = Task.detached {
            try await Task.sleep(for: .seconds(8))
            let handle = FileHandle(forWritingAtPath: pipe.path)
            try handle?.write(contentsOf: Data("late".utf8))
            try handle?.close()
        }
        defer { writer.cancel() }
        let error = await #expect(throws: APIError.self) { try await upload.value }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("not a regular file") == true, "\(String(describing: error))")
        // Before: the loop thread waited in open() for a writer; this call failed its deadline.
        #expect(try await unrelated.value.isEmpty == false)
    }

    @Test("a method of one's own is sent as written", arguments: TransportKind.allCases)
    func customMethod(transport: TransportKind) async throws {
        let client = transport.client(base)

        let head = try await client.send(Request(method: HTTPMethod(rawValue: "PURGE"), path: "echo", as: String.self))

        #expect(head.hasPrefix("PURGE /echo HTTP/1.1"))
    }

    @Test("an empty header value is sent empty, not dropped", arguments: TransportKind.allCases)
    func emptyHeader(transport: TransportKind) async throws {
        let client = transport.client(base)

        let head = try await client.send(.get("echo", headers: ["X-Empty": ""], as: String.self))

        #expect(head.lowercased().contains("x-empty:"))
    }
}

@Suite("The default transport")
struct DefaultTransportTests {
    @Test("CurlTransport on Linux, URLSessionTransport on Apple platforms")
    func platformDefault() {
        #if os(Linux)
            #expect(APIClient.defaultTransport() is CurlTransport)
            #expect(APIClient(baseURL: URL(string: "https://example.com")!).transport is CurlTransport)
        #else
            #expect(APIClient.defaultTransport() is URLSessionTransport)
        #endif
    }
}

@Suite(
    "Transport lifetime", .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct TransportLifetimeTests {
    @Test(
        "a transport released while its last exchange is still being set up does not crash",
        arguments: TransportKind.allCases)
    func releasedEarly(transport kind: TransportKind) async throws {
        let base = try #require(LocalServers.faults)
        var unexpected: [String] = []
        for _ in 0..<100 {
            let client = APIClient(baseURL: base, transport: kind.make())
            // The deadline usually ends the call at once, before the transport may even have made
            // its task; then the transport goes away. A quick enough answer may also win.
            do {
                _ = try await client.send(Request(path: "ok", timeout: .microseconds(200), as: Data.self))
            } catch let error as APIError where error.kind == .transport(.deadlineExceeded) {
                continue  // the usual outcome
            } catch {
                unexpected.append("\(error)")
            }
        }

        #expect(unexpected.isEmpty, "\(unexpected.prefix(3))")
    }
}
