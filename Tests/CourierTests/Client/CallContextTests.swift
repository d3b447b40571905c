import Courier
import CourierTesting
import Foundation
import Testing

/// Each call runs in a context of its own, and what a middleware may rely on holds: the facts on
/// the request and response values, and `next` called after `intercept` returned.
@Suite("Call context")
struct CallContextTests {
    /// Passes the request on, then sends it once more from a task of its own after returning:
    /// what a stale-while-revalidate refresh does.
    private final class LateAgain: Middleware {
        let late = Locked<HTTPResponse?>(nil)
        let seen = Locked<[(streams: Bool, mayBeSentAgain: Bool)]>([])

        func intercept(
            _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            seen.withLock { $0.append((request.streamsResponse, request.mayBeSentAgain)) }
            let response = try await next(request)
            // Detached, as the Middleware docs say: a task that inherits the call's context could
            // reach the transport before the call has returned.
            Task.detached { [late] in
                let again = try await next(request)
                late.withLock { $0 = again }
            }
            return response
        }

        func lateResponse() async throws -> HTTPResponse {
            for _ in 0..<4_500 {
                if let response = late.withLock({ $0 }) { return response }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw CancellationError()
        }
    }

    @Test("next called after intercept returned counts in none of the call's metrics")
    func lateNextMetrics() async throws {
        let stub = StubTransport().on(.get, "v1/item", .json(#"{"ok": true}"#))
        let late = LateAgain()
        let client = APIClient(baseURL: baseURL, transport: stub, middlewares: [late])
        let response = try await client.response(for: .get("item", as: Data.self))
        let again = try await late.lateResponse()
        #expect(response.metrics.attempts == 1)
        #expect(String(decoding: again.body, as: UTF8.self) == #"{"ok": true}"#)
        #expect(stub.requests.count == 2)
    }

    @Test("next called after a stream's call returned streams nowhere: the stream holds its own body once")
    func lateNextStream() async throws {
        let stub = StubTransport().on(.get, "v1/export", .response(body: Data("first".utf8)))
        let late = LateAgain()
        let client = APIClient(baseURL: baseURL, transport: stub, middlewares: [late])
        let stream = try await client.stream(.get("export", as: Data.self))
        var received = Data()
        var iterator = stream.makeAsyncIterator()
        received += try await iterator.next() ?? Data()
        let again = try await late.lateResponse()
        while let piece = try await iterator.next() { received += piece }
        #expect(String(decoding: received, as: UTF8.self) == "first")
        #expect(String(decoding: again.body, as: UTF8.self) == "first", "the late exchange kept its own body")
        #expect(again.streamedBodyBytes == nil)
    }

    @Test("a streamed call's request says it streams, and its response says how much went by")
    func streamingFacts() async throws {
        let body = Data(repeating: 7, count: 100_000)
        let stub = StubTransport().on(.get, "v1/export", .response(body: body))
        let late = LateAgain()
        let logged = Locked<HTTPResponse?>(nil)
        let client = APIClient(
            baseURL: baseURL, transport: stub,
            middlewares: [Inspect { response in logged.withLock { $0 = response } }, late])
        var count = 0
        for try await piece in try await client.stream(.get("export", as: Data.self)) { count += piece.count }
        #expect(count == body.count)
        #expect(late.seen.withLock { $0.first?.streams } == true)
        #expect(late.seen.withLock { $0.first?.mayBeSentAgain } == true)
        #expect(logged.withLock { $0?.streamedBodyBytes } == Int64(body.count))
        #expect(logged.withLock { $0?.body.isEmpty } == true)

        _ = try await client.send(.get("export", as: Data.self))
        #expect(late.seen.withLock { $0.last?.streams } == false)
        #expect(logged.withLock { $0?.streamedBodyBytes } == nil)
    }

    /// Hands every response to `observe`.
    private struct Inspect: Middleware {
        let observe: @Sendable (HTTPResponse) -> Void
        func intercept(
            _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            let response = try await next(request)
            observe(response)
            return response
        }
    }

    @Test("once a stream's head reached its caller the request may not be sent again")
    func noReplayAfterHead() async throws {
        let stub = StubTransport().on(.get, "v1/export", .response(body: Data("x".utf8)))
        let asked = Locked<Bool?>(nil)
        let client = APIClient(
            baseURL: baseURL, transport: stub,
            middlewares: [
                AfterHead { request in asked.withLock { $0 = request.mayBeSentAgain } }
            ])
        for try await _ in try await client.stream(.get("export", as: Data.self)) {}
        #expect(asked.withLock { $0 } == false)
    }

    /// Asks `probe` about the request once `next` returned (a stream's head reached its caller by then).
    private struct AfterHead: Middleware {
        let probe: @Sendable (HTTPRequest) -> Void
        func intercept(
            _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            let response = try await next(request)
            probe(request)
            return response
        }
    }

    /// A provider whose refresh posts an 80,000-byte form straight to the transport, no client in
    /// between: what a hand-written token call does.
    private struct DirectTokens: CredentialProvider {
        let transport: StubTransport

        func credential() async throws -> Credential { .bearer("stale") }

        func refresh(rejecting credential: Credential) async throws -> Credential? {
            let url = URL(string: "https://auth.example.com/token")!
            _ = try await transport.send(HTTPRequest(method: .post, url: url, body: .data(Data(count: 80_000))))
            return .bearer("fresh")
        }
    }

    @Test("a refresh started by an upload runs outside it: the token call's body never counts in its progress")
    func refreshOutsideUpload() async throws {
        let stub = StubTransport()
            .on(.post, "*") { request in
                request.url.host == "auth.example.com" || request.headers[.authorization] == "Bearer fresh"
                    ? .json(#"{"ok": true}"#) : .status(.unauthorized)
            }
        let client = APIClient(
            baseURL: baseURL, transport: stub, middlewares: [AuthMiddleware(provider: DirectTokens(transport: stub))])
        var route = Request<Data>(method: .post, path: "upload", as: Data.self)
        route.body = .data(Data(count: 50_000))
        let upload = client.upload(route, as: Data.self)
        let steps = Task {
            var steps: [UploadProgress] = []
            for await step in upload.progress { steps.append(step) }
            return steps
        }
        _ = try await upload.value()
        let seen = await steps.value
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.bytesExpected == 50_000 }, "progress: \(seen)")
    }

    @Test("a deduplicated call is in its own metrics, attempt note included")
    func dedupMetrics() async throws {
        let stub = StubTransport().on(.get, "v1/item", .json(#"{"a":1}"#))
        let client = APIClient(baseURL: baseURL, transport: stub, middlewares: [DeduplicationMiddleware()])
        let response = try await client.response(for: .get("item", as: Data.self))
        #expect(response.metrics.attempts == 1)
        #expect(response.metrics.bytesReceived == 7)
    }

    /// Rebuilds every request from its parts, as a middleware that signs requests might.
    private struct Rebuild: Middleware {
        func intercept(
            _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            try await next(
                HTTPRequest(
                    method: request.method, url: request.url, headers: request.headers, body: request.body,
                    timeout: request.timeout, idleTimeout: request.idleTimeout, policies: request.policies))
        }
    }

    @Test("a request rebuilt by a middleware still streams: the cache neither stores nor answers a stream")
    func rebuiltRequestStreams() async throws {
        let stub = StubTransport().on(
            .get, "v1/feed", .response(headers: ["Cache-Control": "max-age=600"], body: Data("1234567".utf8)))
        let client = APIClient(
            baseURL: baseURL, transport: stub, middlewares: [Rebuild(), ResponseCacheMiddleware()])
        var streamed = Data()
        for try await piece in try await client.stream(.get("feed", as: Data.self)) { streamed += piece }
        #expect(streamed.count == 7)
        #expect(try await client.send(.get("feed", as: Data.self)).count == 7)
        streamed = Data()
        for try await piece in try await client.stream(.get("feed", as: Data.self)) { streamed += piece }
        #expect(streamed.count == 7)
    }
}
