import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Response streams over the stub transport")
struct ResponseStreamTests {
    private struct Record: Decodable, Equatable {
        let recordId: Int
    }

    private static let eventStream: HTTPHeaders = [.contentType: "text/event-stream"]

    @Test("the head comes first; the pieces then add up to the body, in order, however slowly they are read")
    func headAndPieces() async throws {
        let body = Data((0..<300_000).map { UInt8($0 % 251) })
        let stub = StubTransport().on(.get, "v1/export", .response(headers: ["X-Total": "3"], body: body))
        let client = APIClient(baseURL: baseURL, transport: stub)

        let stream = try await client.stream(.get("export", as: Data.self), options: StreamOptions(bufferSize: 70_000))

        #expect(stream.response.status == .ok)
        #expect(stream.response.headers["X-Total"] == "3")
        #expect(stream.response.body.isEmpty)
        var received = Data()
        var pieces = 0
        for try await piece in stream {
            received.append(piece)
            pieces += 1
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(received == body)
        #expect(pieces > 1)
    }

    @Test("one iterator reads a stream: another is refused while it goes on, takes nothing, and cancels nothing")
    func secondIterator() async throws {
        let body = Data((0..<500_000).map { UInt8($0 % 251) })
        let stub = StubTransport().on(.get, "v1/export", .response(body: body))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let stream = try await client.stream(
            .get("export", as: Data.self), options: StreamOptions(bufferSize: 64 << 10))

        var reader = stream.makeAsyncIterator()
        var received = try await reader.next() ?? Data()
        do {
            var other = stream.makeAsyncIterator()
            let error = await #expect(throws: APIError.self) { _ = try await other.next() }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.message.contains("one reader") == true, "\(String(describing: error))")
        }
        // The other iterator is gone: the stream goes on, whole.
        while let piece = try await reader.next() { received.append(piece) }
        #expect(received == body)
        var late = stream.makeAsyncIterator()
        #expect(try await late.next() == nil)
    }

    @Test("lines and JSON lines, decoded with the client's decoder; blank lines skipped")
    func views() async throws {
        let text = "{\"record_id\": 1}\r\n\n{\"record_id\": 2}\n{\"record_id\": 3}"
        let stub = StubTransport().on(.get, "v1/export", .text(text))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let client = APIClient(baseURL: baseURL, transport: stub, decoder: decoder)

        var lines: [String] = []
        for try await line in try await client.stream(.get("export", as: Data.self)).lines { lines.append(line) }
        #expect(lines == ["{\"record_id\": 1}", "", "{\"record_id\": 2}", "{\"record_id\": 3}"])

        var records: [Record] = []
        let stream = try await client.stream(.get("export", as: Data.self))
        for try await record in stream.jsonLines(as: Record.self) { records.append(record) }
        #expect(records == [Record(recordId: 1), Record(recordId: 2), Record(recordId: 3)])
    }

    @Test("a line that does not decode names its line number")
    func badJSONLine() async throws {
        let stub = StubTransport().on(.get, "v1/export", .text("{\"record_id\": 1}\n{\"record_id\": \"two\"}\n"))
        let client = APIClient(baseURL: baseURL, transport: stub)
        var decoded = 0
        let error = await #expect(throws: APIError.self) {
            for try await _ in try await client.stream(.get("export", as: Data.self)).jsonLines(as: [String: Int].self)
            {
                decoded += 1
            }
        }
        #expect(decoded == 1)
        #expect(error?.kind == .decoding)
        #expect(error?.message.hasPrefix("line 2:") == true, "\(String(describing: error?.message))")
    }

    @Test("an unacceptable status fails before streaming, with the endpoint's error body typed")
    func unacceptableStatus() async throws {
        let stub = StubTransport()
            .on(.get, "v1/search", .json(#"{"errorMessage": "Invalid value"}"#, status: .badRequest))
            .on(.get, "v1/plain", .json(#"{"message": "gone"}"#, status: HTTPStatus(code: 410)))
        let client = APIClient(baseURL: baseURL, transport: stub)

        let typed = await #expect(throws: APIError.self) { try await client.stream(SearchSongs(term: "x")) }
        #expect(typed?.kind == .unacceptableStatus(.badRequest))
        #expect(typed?.errorBody(as: ITunesError.self)?.errorMessage == "Invalid value")
        #expect(typed?.response?.body == Data(#"{"errorMessage": "Invalid value"}"#.utf8))

        let plain = await #expect(throws: APIError.self) { try await client.stream(.get("plain", as: Data.self)) }
        #expect(plain?.kind == .unacceptableStatus(HTTPStatus(code: 410)))
        #expect(plain?.errorBody(as: ServerMessage.self)?.serverMessage == "gone")
    }

    @Test("an error body is kept to its first 64 KiB: a longer one fails at once with what was kept")
    func boundedErrorBody() async throws {
        let page = Data(repeating: UInt8(ascii: "e"), count: 5 << 20)
        let stub = StubTransport().on(.get, "v1/huge", .response(status: .internalServerError, body: page))
            .on(
                .get, "v1/announced",
                .response(status: .internalServerError, headers: ["Content-Length": "5242880"], body: page))
        let client = APIClient(baseURL: baseURL, transport: stub)

        for path in ["huge", "announced"] {
            let error = await #expect(throws: APIError.self) {
                try await client.stream(Request(path: "\(path)", as: Data.self))
            }
            #expect(error?.kind == .unacceptableStatus(.internalServerError))
            #expect((error?.response?.body.count ?? .max) <= 64 * 1024, "\(path)")
        }
    }

    @Test("a Content-Type the route does not accept fails before streaming")
    func contentType() async throws {
        let stub = StubTransport().on(.get, "v1/events", .text("<html>"))
        let client = APIClient(baseURL: baseURL, transport: stub)
        var route = Request<Data>(path: "events")
        route.headers[.accept] = "text/event-stream"
        let error = await #expect(throws: APIError.self) {
            try await client.stream(Accepting(base: route, types: ["text/event-stream"]))
        }
        #expect(error?.kind == .unacceptableContentType("text/plain; charset=utf-8"))
    }

    @Test("a stream asks for any type unless the route says, and has no overall deadline unless the route sets one")
    func requestDefaults() async throws {
        let stub = StubTransport().on(.get, "*", .text("x"))
        let client = APIClient(baseURL: baseURL, transport: stub)

        _ = try await client.stream(.get("a", as: Data.self))
        var timed = Request<Data>(path: "b", timeout: .seconds(5))
        timed.idleTimeout = .seconds(2)
        timed.headers[.accept] = "application/x-ndjson"
        _ = try await client.stream(timed)

        let (first, second) = (stub.requests[0], stub.requests[1])
        #expect(first.headers[.accept] == "*/*")
        #expect((first.timeout ?? .zero) > .seconds(365 * 24 * 3600))
        #expect(first.idleTimeout == nil)
        #expect(second.headers[.accept] == "application/x-ndjson")
        #expect(second.timeout == .seconds(5))
        #expect(second.idleTimeout == .seconds(2))
    }

    @Test("the retry middleware retries a 503 before the head; the stream then reads the good answer")
    func retryBeforeHead() async throws {
        let stub = StubTransport().on(.get, "v1/feed", .status(.serviceUnavailable), .text("ok\n"))
        let clock = ManualClock()
        let client = APIClient(
            baseURL: baseURL, transport: stub, middlewares: [RetryMiddleware(clock: clock.retryClock())])
        var lines: [String] = []
        for try await line in try await client.stream(.get("feed", as: Data.self)).lines { lines.append(line) }
        #expect(lines == ["ok"])
        #expect(stub.requests.count == 2)
    }

    @Test("a middleware that sends the request again after the head is refused before any I/O; the stream fails")
    func replayAfterHead() async throws {
        let stub = StubTransport().on(.get, "v1/feed", .text("ok\n"))
        let client = APIClient(baseURL: baseURL, transport: stub, middlewares: [SendsTwice()])
        let stream = try await client.stream(.get("feed", as: Data.self))
        let error = await #expect(throws: APIError.self) {
            for try await _ in stream {}
        }
        #expect(error?.kind == .middleware)
        #expect(stub.requests.count == 1)
    }

    @Test("the response cache and deduplication never keep or share a stream")
    func noCacheNoSharing() async throws {
        let stub = StubTransport().on(
            .get, "v1/feed", .response(headers: ["Cache-Control": "max-age=600"], body: Data("x".utf8)))
        let cache = ResponseCache()
        let client = APIClient(
            baseURL: baseURL, transport: stub,
            middlewares: [DeduplicationMiddleware(), ResponseCacheMiddleware(cache: cache)])
        for _ in 0..<3 {
            var body = Data()
            for try await piece in try await client.stream(.get("feed", as: Data.self)) { body.append(piece) }
            #expect(body == Data("x".utf8))
        }
        #expect(stub.requests.count == 3)
    }

    @Test("the log line of a stream counts the bytes streamed")
    func logLine() async throws {
        let stub = StubTransport().on(.get, "v1/feed", .text(String(repeating: "y", count: 1000)))
        let lines = CapturingLogHandler(minimumLevel: .info)
        let client = APIClient(baseURL: baseURL, transport: stub, middlewares: [LoggingMiddleware(sink: lines)])
        for try await _ in try await client.stream(.get("feed", as: Data.self)) {}
        try await Task.sleep(for: .milliseconds(50))
        #expect(lines.lines.contains { $0.contains("1000 bytes streamed") }, "\(lines.lines)")
    }

    @Test("cancelling the task that waits for the head ends the call with CancellationError", .timeLimit(.minutes(2)))
    func cancelBeforeHead() async throws {
        let stub = StubTransport().on(.get, "v1/slow", StubResponse.text("late").delayed(by: .seconds(600)))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let task = Task { try await client.stream(.get("slow", as: Data.self)) }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // Not the stub's 600 s: the call ends when cancelled (how fast, StreamLatencyTests measures alone;
        // in this pass, the cooperative pool's two threads are shared with every other suite).
        #expect(ContinuousClock.now - start < .seconds(45))
        #expect(throws: CancellationError.self) { try result.get() }
    }
}

/// A route with accepted content types.
private struct Accepting: Route {
    let base: Request<Data>
    let types: [String]
    var path: Path { base.path }
    var headers: HTTPHeaders { base.headers }
    var acceptableContentTypes: [String]? { types }
}

/// Sends every request twice (a broken replaying middleware).
private struct SendsTwice: Middleware {
    func intercept(
        _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        _ = try await next(request)
        return try await next(request)
    }
}
