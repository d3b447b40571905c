import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Deduplication middleware")
struct DeduplicationMiddlewareTests {
    @Test("100 concurrent identical GETs make one transport call and all get its response")
    func coalesces() async throws {
        let transport = StubTransport().on(.get, "*", .text("shared").delayed(by: .milliseconds(200)))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [DeduplicationMiddleware()])

        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await client.send(.get("popular", as: String.self)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(values == Array(repeating: "shared", count: 100))
        #expect(transport.requests.count == 1)
    }

    /// Answers each request, after a delay that makes concurrent calls overlap, with the values of
    /// the headers that may change a response.
    private func echoingTransport() -> StubTransport {
        StubTransport().on(.get, "*") { request in
            let names: [HTTPHeaders.Name] = [.authorization, "Range", .accept, "Accept-Language", "X-Request-ID"]
            let echoed = names.map { "\($0.rawName)=\(request.headers[$0] ?? "-")" }.joined(separator: " ")
            return .text(echoed).delayed(by: .milliseconds(150))
        }
    }

    /// Both calls at once, so that they are in flight together.
    private func together(
        _ first: @escaping @Sendable () async throws -> String, _ second: @escaping @Sendable () async throws -> String
    ) async throws -> (String, String) {
        async let one = first()
        async let two = second()
        return try await (one, two)
    }

    @Test("one middleware shared by two clients with different tokens never gives one user the other's response")
    func twoUsers() async throws {
        let transport = echoingTransport()
        let shared = DeduplicationMiddleware()
        let ada = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [shared, AuthMiddleware(credential: .bearer("ada-token"))])
        let bob = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [shared, AuthMiddleware(credential: .bearer("bob-token"))])

        let (forAda, forBob) = try await together(
            { try await ada.send(.get("me", as: String.self)) },
            { try await bob.send(.get("me", as: String.self)) })

        #expect(forAda.contains("Bearer ada-token"))
        #expect(forBob.contains("Bearer bob-token"))
        #expect(transport.requests.count == 2)
    }

    @Test("in one client, an unauthenticated route never receives an authenticated route's response")
    func unauthenticatedRoute() async throws {
        let transport = echoingTransport()
        let client = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [DeduplicationMiddleware(), AuthMiddleware(credential: .bearer("secret-token"))])

        let (withToken, without) = try await together(
            { try await client.send(.get("me", as: String.self)) },
            { try await client.send(.get("me", as: String.self).policies(requiresAuthentication: false)) })

        #expect(withToken.contains("Bearer secret-token"))
        #expect(without.contains("Authorization=-"), "\(without)")
        #expect(transport.requests.count == 2)
    }

    @Test(
        "GETs differing only in Range, Accept or Accept-Language are separate exchanges, each with its own answer",
        arguments: [
            ("Range", "bytes=0-9", "bytes=10-19"), ("Accept", "text/csv", "application/json"),
            ("Accept-Language", "fr", "de"),
        ] as [(String, String, String)])
    func ordinaryHeadersSplit(name: String, first: String, second: String) async throws {
        let transport = echoingTransport()
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [DeduplicationMiddleware()])
        let header = HTTPHeaders.Name(name)

        let (forOne, forTwo) = try await together(
            { try await client.send(Request<String>(path: "report", headers: [header: first], as: String.self)) },
            { try await client.send(Request<String>(path: "report", headers: [header: second], as: String.self)) })

        #expect(forOne.contains("\(name)=\(first)"), "\(forOne)")
        #expect(forTwo.contains("\(name)=\(second)"), "\(forTwo)")
        #expect(transport.requests.count == 2)
    }

    @Test("a header the key is told to ignore does not split identical requests")
    func ignoredHeader() async throws {
        let transport = echoingTransport()
        let client = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [DeduplicationMiddleware(ignoredHeaders: ["X-Request-ID"])]
        )

        let (forOne, forTwo) = try await together(
            { try await client.send(Request<String>(path: "report", headers: ["X-Request-ID": "1"], as: String.self)) },
            { try await client.send(Request<String>(path: "report", headers: ["X-Request-ID": "2"], as: String.self)) })

        #expect(forOne == forTwo)
        #expect(transport.requests.count == 1)
    }

    @Test("cancelling 99 of 100 callers leaves the last one's exchange running to completion")
    func cancelAllButOne() async throws {
        let gate = Latch()
        let transport = StubTransport().on(.get, "*") { _ in
            try await gate.wait()
            return .text("survivor")
        }
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [DeduplicationMiddleware()])

        let tasks = (0..<100).map { _ in Task { try await client.send(.get("popular", as: String.self)) } }
        #expect(try await eventually { transport.requests.count == 1 })
        for task in tasks.dropLast() { task.cancel() }
        gate.open()

        for task in tasks.dropLast() {
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        #expect(try await tasks.last?.value == "survivor")
        #expect(transport.requests.count == 1)
    }

    @Test("when the last caller leaves, the shared exchange is cancelled")
    func lastLeaverCancels() async throws {
        let cancelled = Counter()
        let transport = StubTransport().on(.get, "*") { _ in
            do {
                try await Task.sleep(for: .seconds(10))
            } catch {
                cancelled.increment()
                throw error
            }
            return .text("never")
        }
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [DeduplicationMiddleware()])

        let tasks = (0..<5).map { _ in Task { try await client.send(.get("slow", as: String.self)) } }
        try await Task.sleep(for: .milliseconds(100))
        for task in tasks { task.cancel() }
        for task in tasks { _ = try? await task.value }
        try await Task.sleep(for: .milliseconds(100))

        #expect(cancelled.count == 1)
        #expect(transport.requests.count == 1)
    }

    @Test("different credentials, methods or bodies are never shared")
    func distinctRequests() async throws {
        let transport = StubTransport().on(where: { _ in true }, .text("ok").delayed(by: .milliseconds(100)))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [DeduplicationMiddleware()])

        async let alice = client.send(.get("me", headers: [.authorization: "Bearer alice"], as: String.self))
        async let bob = client.send(.get("me", headers: [.authorization: "Bearer bob"], as: String.self))
        async let post1 = client.send(.post("me", body: ["a": "1"], as: String.self))
        async let post2 = client.send(.post("me", body: ["a": "1"], as: String.self))
        _ = try await (alice, bob, post1, post2)

        #expect(transport.requests.count == 4)
    }

    @Test("a failure reaches every caller; the next call starts afresh")
    func sharedFailure() async throws {
        let transport = StubTransport().on(
            .get, "*", .failure(URLError(.networkConnectionLost)).delayed(by: .milliseconds(100)), .text("ok")
        )
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [DeduplicationMiddleware()])

        async let first = Result(catching: { try await client.send(.get("x", as: String.self)) })
        async let second = Result(catching: { try await client.send(.get("x", as: String.self)) })
        let results = await [first, second]

        for result in results {
            #expect((result.failure as? APIError)?.kind == .transport(.connectionLost))
        }
        #expect(try await client.send(.get("x", as: String.self)) == "ok")
        #expect(transport.requests.count == 2)
    }
}
