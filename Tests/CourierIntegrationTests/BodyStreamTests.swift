import Courier
import Foundation
import Testing

/// What the sink saw of one request body.
struct SinkReceipt: Decodable, Sendable {
    let bytes: Int64
    let contentLength: String?
    let chunked: Bool
    let sha256: String?

    enum CodingKeys: String, CodingKey {
        case bytes, chunked, sha256
        case contentLength = "content_length"
    }
}

/// What the sink remembers of a request sent with `X-Probe`, complete or cut short.
struct SinkReport: Decodable, Sendable {
    let bytes: Int64
    let complete: Bool
}

/// Chunks made as they are asked for: `count` chunks of `size` bytes of `byte` (the same `Data`
/// each time: no allocation per chunk), a failure after `failAfter` chunks, and `onEnd` called
/// when the producer's iteration ends, finished or cancelled.
struct GeneratedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    var count: Int
    var size: Int
    var failAfter: Int?
    var stallAfter: Int?
    /// Waits this long before the chunk numbered `pauseBefore` (from 0).
    var pauseBefore: Int?
    var pause: Duration = .milliseconds(500)
    var onStall: @Sendable () -> Void = {}
    var onCancel: @Sendable () -> Void = {}

    struct Broke: Error {}

    struct AsyncIterator: AsyncIteratorProtocol {
        let base: GeneratedChunks
        let chunk: Data
        var sent = 0

        mutating func next() async throws -> Data? {
            if base.pauseBefore == sent { try await Task.sleep(for: base.pause) }
            if let stall = base.stallAfter, sent == stall {
                base.onStall()
                let onCancel = base.onCancel
                await withTaskCancellationHandler {
                    // A producer that never yields again (until its task is cancelled).
                    try? await Task.sleep(for: .seconds(3600))
                } onCancel: {
                    onCancel()
                }
                try Task.checkCancellation()
            }
            if let fail = base.failAfter, sent == fail { throw Broke() }
            guard sent < base.count else { return nil }
            sent += 1
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self, chunk: Data(repeating: 0x5a, count: size))
    }
}

/// Hands out a new token on every refresh: AuthMiddleware replays the request after a 401.
private struct RefreshingTokens: CredentialProvider {
    func credential() async throws -> Credential { .bearer("old") }
    func refresh(rejecting credential: Credential) async throws -> Credential? { .bearer("new") }
}

private final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

@Suite(
    "Streamed request bodies",
    .enabled(if: LocalServers.sink != nil && LocalServers.httpbin != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(2))
)
struct BodyStreamTests {
    private func post(_ transport: any HTTPTransport, _ stream: HTTPBodyStream, probe: String? = nil) async throws
        -> SinkReceipt
    {
        var request = HTTPRequest(
            method: .post, url: LocalServers.sink!.appendingPathComponent("upload"), body: .stream(stream),
            timeout: .seconds(90))
        if let probe { request.headers["X-Probe"] = probe }
        let response = try await transport.send(request)
        return try JSONDecoder().decode(SinkReceipt.self, from: response.body)
    }

    /// The sink's record of the request sent with `probe`, once that request has ended there.
    private func report(_ probe: String) async throws -> SinkReport? {
        let transport = CurlTransport()
        for _ in 0..<200 {
            let response = try await transport.send(
                HTTPRequest(url: LocalServers.sink!.appendingPathComponent("report/\(probe)")))
            if response.status.code == 200 { return try JSONDecoder().decode(SinkReport.self, from: response.body) }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    @Test("a stream with a declared length arrives whole with its Content-Length", arguments: TransportKind.allCases)
    func knownLength(kind: TransportKind) async throws {
        let chunks = GeneratedChunks(count: 80, size: 65_536)
        let receipt = try await post(kind.make(), HTTPBodyStream(chunks, length: 80 * 65_536))
        #expect(receipt.bytes == 80 * 65_536)
        #expect(receipt.contentLength == String(80 * 65_536))
        #expect(!receipt.chunked)
    }

    @Test(
        "a stream of unknown length goes chunked over CurlTransport (spooled with a length over URLSession)",
        arguments: TransportKind.allCases)
    func unknownLength(kind: TransportKind) async throws {
        let receipt = try await post(kind.make(), HTTPBodyStream(GeneratedChunks(count: 33, size: 100_003)))
        #expect(receipt.bytes == 33 * 100_003)
        #expect(receipt.chunked == kind.isCurl)
        #expect(receipt.contentLength == (kind.isCurl ? nil : String(33 * 100_003)))
    }

    @Test(
        "zero chunks and empty chunks make an empty body, with or without a length",
        arguments: TransportKind.allCases)
    func emptyBodies(kind: TransportKind) async throws {
        let transport = kind.make()
        let none = try await post(transport, HTTPBodyStream(GeneratedChunks(count: 0, size: 1)))
        let empties = try await post(transport, HTTPBodyStream(GeneratedChunks(count: 5, size: 0), length: 0))
        #expect(none.bytes == 0)
        #expect(empties.bytes == 0)
        #expect(empties.contentLength == "0")
    }

    @Test("one 64 MiB chunk arrives whole", arguments: TransportKind.defaults)
    func oneLargeChunk(kind: TransportKind) async throws {
        let receipt = try await post(kind.make(), HTTPBodyStream(GeneratedChunks(count: 1, size: 64 << 20)))
        #expect(receipt.bytes == 64 << 20)
    }

    @Test(
        "a producer with more bytes than it declared fails the call, and the server never gets a whole request",
        arguments: TransportKind.allCases)
    func extraBytes(kind: TransportKind) async throws {
        let probe = UUID().uuidString
        // The declared length first, then a pause (as if done), then one chunk too many.
        let stream = HTTPBodyStream(GeneratedChunks(count: 11, size: 100_000, pauseBefore: 10), length: 1_000_000)
        let error = try #require(
            await #expect(throws: APIError.self) { try await post(kind.make(), stream, probe: probe) })
        #expect(error.kind == .transport(.bodyLengthMismatch), "\(error)")
        if kind.isCurl {
            let seen = try #require(try await report(probe), "the sink never saw the request end")
            #expect(!seen.complete && seen.bytes < 1_000_000, "\(seen)")
        }
    }

    @Test(
        "a stream that declares 0 bytes is held to it: a byte, an error or silence fails the call",
        arguments: TransportKind.allCases)
    func zeroDeclared(kind: TransportKind) async throws {
        // Was: libcurl never read such a stream, and sent an empty body whatever the producer did.
        let transport = kind.make()
        let extra = try #require(
            await #expect(throws: APIError.self) {
                try await post(transport, HTTPBodyStream(GeneratedChunks(count: 1, size: 10), length: 0))
            })
        #expect(extra.kind == .transport(.bodyLengthMismatch), "\(extra)")
        let broke = try #require(
            await #expect(throws: APIError.self) {
                try await post(transport, HTTPBodyStream(GeneratedChunks(count: 2, size: 0, failAfter: 1), length: 0))
            })
        #expect(broke.underlyingError is GeneratedChunks.Broke, "\(broke)")
        var silent = HTTPRequest(
            method: .post, url: LocalServers.sink!.appendingPathComponent("upload"),
            body: .stream(HTTPBodyStream(GeneratedChunks(count: 1, size: 0, stallAfter: 0), length: 0)),
            timeout: .seconds(60), idleTimeout: .seconds(1))
        silent.headers["X-Test"] = "silent"
        let quiet = try #require(await #expect(throws: APIError.self) { try await transport.send(silent) })
        #expect(quiet.kind == .transport(.timedOut), "\(quiet)")
        // 2,000 empty chunks and an end: an empty body, sent.
        let empty = try await post(transport, HTTPBodyStream(GeneratedChunks(count: 2000, size: 0), length: 0))
        #expect(empty.bytes == 0)
    }

    @Test("URLSession refuses a stream that declares more than it may spool before reading a byte of it")
    func spoolLimitDeclared() async throws {
        let touched = Flag()
        let transport = URLSessionTransport(configuration: .init(maximumSpooledStreamSize: 1_000_000))
        let stream = HTTPBodyStream(
            GeneratedChunks(count: 100, size: 100_000, stallAfter: 0, onStall: { touched.set() }), length: 10_000_000)
        let request = HTTPRequest(
            method: .post, url: LocalServers.sink!.appendingPathComponent("upload"), body: .stream(stream),
            timeout: .seconds(60), idleTimeout: .seconds(2))
        let error = try #require(await #expect(throws: APIError.self) { try await transport.send(request) })
        #expect(error.message.contains("declares 10000000 bytes"), "\(error)")
        #expect(!touched.isSet, "the producer was started")
    }

    @Test(
        "a producer with fewer bytes than it declared fails the call; the request is cut, not ended",
        arguments: TransportKind.allCases)
    func tooFewBytes(kind: TransportKind) async throws {
        let probe = UUID().uuidString
        let stream = HTTPBodyStream(GeneratedChunks(count: 9, size: 100_000), length: 1_000_000)
        let error = try #require(
            await #expect(throws: APIError.self) { try await post(kind.make(), stream, probe: probe) })
        #expect(error.kind == .transport(.bodyLengthMismatch), "\(error)")
        if kind.isCurl {
            let seen = try #require(try await report(probe), "the sink never saw the request end")
            #expect(!seen.complete, "\(seen)")
        }
    }

    @Test(
        "a producer that throws half-way fails the call with its error; a chunked request is never terminated",
        arguments: TransportKind.allCases)
    func producerThrows(kind: TransportKind) async throws {
        let probe = UUID().uuidString
        let transport = kind.make()
        let stream = HTTPBodyStream(GeneratedChunks(count: 20, size: 100_000, failAfter: 10))
        let error = try #require(
            await #expect(throws: APIError.self) { try await post(transport, stream, probe: probe) })
        #expect(error.underlyingError is GeneratedChunks.Broke, "\(error)")
        if kind.isCurl {
            let seen = try #require(try await report(probe), "the sink never saw the request end")
            #expect(!seen.complete, "\(seen)")
        }
        // The connection was not kept half-sent: the next request on the transport is whole.
        let next = try await post(transport, HTTPBodyStream(GeneratedChunks(count: 3, size: 1000)))
        #expect(next.bytes == 3000)
    }

    @Test("cancelling the call mid-stream cancels the producer's task", arguments: TransportKind.allCases)
    func cancellation(kind: TransportKind) async throws {
        let (stalled, cancelled) = (Flag(), Flag())
        let stream = HTTPBodyStream(
            GeneratedChunks(
                count: 100, size: 10_000, stallAfter: 5, onStall: { stalled.set() }, onCancel: { cancelled.set() }))
        let transport = kind.make()
        let call = Task { try await post(transport, stream) }
        for _ in 0..<900 where !stalled.isSet { try await Task.sleep(for: .milliseconds(50)) }
        call.cancel()
        let result = await call.result
        #expect(result.failure is CancellationError, "\(result)")
        for _ in 0..<900 where !cancelled.isSet { try await Task.sleep(for: .milliseconds(50)) }
        #expect(cancelled.isSet, "the producer was never cancelled")
    }

    @Test(
        "a silent producer fails with timedOut after the idle timeout, while the transport serves other requests",
        arguments: TransportKind.allCases)
    func silentProducer(kind: TransportKind) async throws {
        let transport = kind.make()
        let stream = HTTPBodyStream(GeneratedChunks(count: 10, size: 1000, stallAfter: 2))
        var request = HTTPRequest(
            method: .post, url: LocalServers.sink!.appendingPathComponent("upload"), body: .stream(stream),
            idleTimeout: .seconds(2))
        request.timeout = .seconds(60)
        let uploadEnded = Flag()
        let upload = Task { () -> (any Error)? in
            defer { uploadEnded.set() }
            do {
                _ = try await transport.send(request)
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        // Meanwhile another request on the same transport (the same loop) completes.
        let other = try await transport.send(HTTPRequest(url: LocalServers.httpbin!.appendingPathComponent("get")))
        let otherFinishedFirst = !uploadEnded.isSet && other.status.code == 200
        let error = await upload.value
        #expect(otherFinishedFirst)
        #expect((error as? APIError)?.kind == .transport(.timedOut), "\(String(describing: error))")
    }

    @Test(
        "a server that answers before the body ends (a 413) gets its answer to the caller, and the producer is stopped",
        arguments: [TransportKind.curl, .curlLoops])
    func earlyAnswer(kind: TransportKind) async throws {
        let (stalled, cancelled) = (Flag(), Flag())
        let stream = HTTPBodyStream(
            GeneratedChunks(
                count: 100, size: 10_000, stallAfter: 3, onStall: { stalled.set() }, onCancel: { cancelled.set() }))
        let request = HTTPRequest(
            method: .post, url: LocalServers.httpbin!.appendingPathComponent("status/413"), body: .stream(stream),
            idleTimeout: .seconds(30))
        let response = try await kind.make().send(request)
        #expect(response.status.code == 413)
        // A producer stopped before it reached its stall never stalls (and is never cancelled there).
        try await Task.sleep(for: .milliseconds(100))
        for _ in 0..<900 where stalled.isSet && !cancelled.isSet { try await Task.sleep(for: .milliseconds(50)) }
        #expect(cancelled.isSet || !stalled.isSet, "the producer was left running")
    }

    @Test(
        "a 307 redirect of a stream body is refused with a clear error; a 303 is followed as a GET",
        arguments: TransportKind.allCases)
    func redirects(kind: TransportKind) async throws {
        let transport = kind.make()
        let httpbin = LocalServers.httpbin!
        func post(_ status: Int, to path: String) async throws -> HTTPResponse {
            var components = URLComponents(
                url: httpbin.appendingPathComponent("redirect-to"), resolvingAgainstBaseURL: false)!
            components.queryItems = [.init(name: "url", value: path), .init(name: "status_code", value: "\(status)")]
            let stream = HTTPBodyStream(GeneratedChunks(count: 4, size: 1000), length: 4000)
            return try await transport.send(HTTPRequest(method: .post, url: components.url!, body: .stream(stream)))
        }
        let error = try #require(await #expect(throws: APIError.self) { try await post(307, to: "/anything") })
        #expect(error.kind == .transport(.invalidRedirect), "\(error)")
        #expect("\(error)".contains("stream"), "\(error)")
        let followed = try await post(303, to: "/get")
        #expect(followed.status.code == 200)
        #expect(followed.url?.path == "/get")
    }

    @Test(
        "over a real server, a retried 503 reports the 503 and a refreshed 401 fails clearly, each stream sent once",
        arguments: TransportKind.allCases)
    func middlewares(kind: TransportKind) async throws {
        let retrying = APIClient(
            baseURL: LocalServers.httpbin!, transport: kind.make(),
            middlewares: [RetryMiddleware(policy: RetryPolicy(backoff: .init(initial: .milliseconds(10))))])
        let unavailable = RequestBody.stream(HTTPBodyStream(GeneratedChunks(count: 3, size: 1000)))
        let retried = try #require(
            await #expect(throws: APIError.self) {
                try await retrying.send(Request(method: .put, path: "status/503", body: unavailable, as: Data.self))
            })
        #expect(retried.kind == .unacceptableStatus(.serviceUnavailable), "\(retried)")

        let authenticating = APIClient(
            baseURL: LocalServers.httpbin!, transport: kind.make(),
            middlewares: [AuthMiddleware(provider: RefreshingTokens())])
        let rejected = RequestBody.stream(HTTPBodyStream(GeneratedChunks(count: 3, size: 1000)))
        let refreshed = try #require(
            await #expect(throws: APIError.self) {
                try await authenticating.send(Request(method: .post, path: "status/401", body: rejected, as: Data.self))
            })
        #expect(refreshed.kind == .invalidRequest, "\(refreshed)")
        #expect("\(refreshed)".contains("sent already"), "\(refreshed)")
    }

    @Test("upload progress counts the stream's bytes, with its length or none", arguments: TransportKind.allCases)
    func progress(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.sink)
        for length in [Int64(3_000_000), nil] {
            let body = RequestBody.stream(HTTPBodyStream(GeneratedChunks(count: 30, size: 100_000), length: length))
            let upload = client.upload(Request(method: .post, path: "upload", body: body, as: SinkReceipt.self))
            let steps = Task {
                var steps: [UploadProgress] = []
                for await step in upload.progress { steps.append(step) }
                return steps
            }
            let receipt = try await upload.value()
            let seen = await steps.value
            #expect(receipt.bytes == 3_000_000)
            #expect(seen.last?.bytesSent == 3_000_000, "\(seen.suffix(3))")
            // URLSession sends the spooled file with its length: it knows it by then.
            let expected = length ?? (kind.isCurl ? nil : 3_000_000)
            #expect(seen.last?.bytesExpected == expected, "\(seen.suffix(3))")
        }
    }
}
