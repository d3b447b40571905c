import Courier
import CourierTesting
import Foundation
import Testing

/// The README's streaming, upload and cookie samples, compiled and run against the stub transport.
@Suite("README: streams, events, uploads, cookies")
struct ReadmeStreamingTests {
    struct Order: Decodable, Sendable { let amount: Double }
    struct Prompt: Encodable, Sendable { let text: String }
    struct Photo: Decodable, Sendable { let id: Int }
    struct Home: Decodable, Sendable { let name: String }

    private static let eventStream: HTTPHeaders = [.contentType: "text/event-stream"]

    @Test("streams: lines, JSON lines and events")
    func streams() async throws {
        let stub = StubTransport()
            .on(.get, "v1/logs/tail", .text("started\r\nlistening on 8080\n"))
            .on(.get, "v1/orders.ndjson", .text("{\"amount\": 2.5}\n{\"amount\": 4}\n"))
            .on(
                .post, "v1/completions",
                .response(
                    headers: Self.eventStream,
                    body: Data("event: token\ndata: Hel\n\nevent: token\ndata: lo\n\nevent: done\ndata: {}\n\n".utf8)))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let prompt = Prompt(text: "hi")
        var printed: [String] = []
        var total = 0.0

        let tail = try await client.stream(Request<Data>(path: "logs/tail", query: ["service": "api"]))
        #expect(tail.response.status == .ok)
        for try await line in tail.lines { printed.append(line) }

        let export = try await client.stream(Request<Data>(path: "orders.ndjson"))
        for try await order in export.jsonLines(as: Order.self) { total += order.amount }

        let answer = try await client.stream(Request<Data>(method: .post, path: "completions", body: .json(prompt)))
        var tokens = ""
        for try await event in answer.serverSentEvents() where event.type == "token" { tokens += event.data }

        #expect(printed == ["started", "listening on 8080"])
        #expect(total == 6.5)
        #expect(tokens == "Hello")
    }

    @Test("events that reconnect")
    func events() async throws {
        let calls = Counter()
        let stub = StubTransport().on(.get, "v1/feed") { _ in
            calls.increment() == 1
                ? .response(headers: Self.eventStream, body: Data("retry: 1\nid: 1\nevent: update\ndata: x\n\n".utf8))
                : .status(.noContent)
        }
        let client = APIClient(baseURL: baseURL, transport: stub)
        var seen: [String] = []
        for try await event in client.events(Request<Data>(path: "feed")) {
            seen.append("\(event.type) \(event.id ?? "-") \(event.data)")
        }
        #expect(seen == ["update 1 x"])
    }

    @Test("upload progress")
    func upload() async throws {
        let stub = StubTransport().on(.post, "v1/photos", .json(#"{"id": 7}"#))
        let client = APIClient(baseURL: baseURL, transport: stub)
        var form = MultipartForm()
        form.append("beach", name: "caption")
        let upload = client.upload(Request(method: .post, path: "photos", body: .multipart(form), as: Photo.self))
        var steps: [UploadProgress] = []
        let photo = try await upload.value()
        for await step in upload.progress { steps.append(step) }
        #expect(photo.id == 7)
        #expect(steps.last?.fractionCompleted == 1)
        #expect(steps.last?.description.hasSuffix("bytes sent (100%)") == true)
    }

    @Test("cookies, only when asked")
    func cookies() async throws {
        let support = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: support, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: support) }
        let stub = StubTransport()
            .on(.post, "v1/login", .response(headers: ["Set-Cookie": "session=abc; Path=/; Max-Age=600"]))
            .on(.get, "v1/home", .json(#"{"name": "Ada"}"#))
        let url = baseURL

        let jar = try CookieJar(persistingTo: support.appendingPathComponent("cookies.json"))  // or CookieJar()
        let client = APIClient(
            baseURL: url, transport: stub, middlewares: [CookieMiddleware(jar: jar), RetryMiddleware()])
        _ = try await client.send(Request<Data>(method: .post, path: "login", body: .form(["user": "ada"])))
        let home = try await client.send(Request<Home>(path: "home"))  // sends the session cookie

        #expect(home.name == "Ada")
        #expect(stub.requests(to: "/v1/home").first?.headers[.cookie] == "session=abc")
        #expect(try CookieJar(persistingTo: support.appendingPathComponent("cookies.json")).allCookies.count == 1)
    }
}
