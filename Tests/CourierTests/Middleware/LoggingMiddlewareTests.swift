import Courier
import CourierTesting
import Foundation
import Testing

/// A secret no log line, cURL command or error description may ever contain.
private let sentinel = "S3NT1NEL-b7f4e2"

/// A secret under names only the test's redactor knows: hidden in logs and cURL commands, which
/// take a redactor; not promised in error and request descriptions, which use the default names.
private let tenantSentinel = "T3NANT-c81d90"

/// A request carrying the sentinel in every place a secret can hide.
private func secretRequest(path: String = "things") -> Request<Data> {
    Request(
        method: .post, path: Path(stringLiteral: path),
        query: [
            "api_key": sentinel, "access_token": sentinel, "token": sentinel, "key": sentinel,
            "signature": sentinel, "password": sentinel, "client_secret": sentinel, "X-Amz-Signature": sentinel,
            "tenant": tenantSentinel, "term": "visible",
        ],
        headers: [
            .authorization: "Bearer \(sentinel)", .cookie: "session=\(sentinel)",
            .proxyAuthorization: "Basic \(sentinel)", "X-Api-Key": sentinel, "X-Auth-Token": sentinel,
            "X-Tenant": tenantSentinel,
        ],
        body: .json(SignUp()),
        as: Data.self
    )
}

/// A JSON body with secret fields beside ordinary ones.
private struct SignUp: Encodable, Sendable {
    let password = sentinel
    let note = "visible"
    let nested = ["refresh_token": sentinel]
}

@Suite("Logging middleware, cURL and redaction")
struct LoggingMiddlewareTests {
    private let redactor = Redactor(additionalNames: ["X-Tenant", "tenant"])

    private func client(_ transport: StubTransport, handler: CapturingLogHandler, logsBodies: Bool = true) -> APIClient
    {
        let logging = LoggingMiddleware(
            sink: handler, configuration: .init(logsHeaders: true, logsBodies: logsBodies, redactor: redactor)
        )
        return APIClient(baseURL: baseURL, transport: transport, middlewares: [logging])
    }

    @Test("the sentinel never appears in a log line, cURL command or error description, whatever the outcome")
    func sentinelNeverPrinted() async throws {
        let echo = StubTransport()
            .on(
                .post, "v1/ok",
                respond: { request in
                    .response(
                        status: .ok,
                        headers: [.setCookie: "session=\(sentinel); HttpOnly", .contentType: "application/json"],
                        body: Data(#"{"echo": "\#(request.url.absoluteString)", "token": "\#(sentinel)"}"#.utf8)
                    )
                }
            )
            .on(.post, "v1/denied", .json(#"{"message": "bad key"}"#, status: .unauthorized))
            .on(
                .post, "v1/offline",
                respond: { request in
                    .failure(
                        URLError(
                            .notConnectedToInternet,
                            userInfo: [
                                NSURLErrorFailingURLErrorKey: request.url,
                                NSLocalizedDescriptionKey: "offline: \(request.url.absoluteString) \(sentinel)",
                            ]))
                })
        let handler = CapturingLogHandler()
        let client = client(echo, handler: handler)
        var printed: [String] = []
        var redactedWithNames: [String] = []

        _ = try await client.send(secretRequest(path: "ok"))
        for path in ["denied", "offline"] {
            do {
                _ = try await client.send(secretRequest(path: path))
            } catch {
                printed.append("\(error)")
                printed.append(String(describing: (error as? APIError)?.request))
            }
        }
        for request in echo.requests {
            redactedWithNames.append(request.curlCommand(redactor: redactor))
            printed.append(request.description)
        }

        redactedWithNames += handler.lines
        #expect(handler.lines.count >= 9)
        #expect(printed.count == 7 && redactedWithNames.count >= 12)
        for text in printed + redactedWithNames {
            #expect(!text.contains(sentinel), "\(text)")
        }
        for text in redactedWithNames {
            #expect(!text.contains(tenantSentinel), "\(text)")
        }
        #expect(handler.lines.contains { $0.contains("term=visible") && $0.contains("api_key=REDACTED") })
        #expect(handler.lines.contains { $0.contains(#""note":"visible""#) })
    }

    @Test("one line per exchange: method, redacted URL, status, duration, bytes and attempt")
    func exchangeLine() async throws {
        let handler = CapturingLogHandler(minimumLevel: .info)
        let transport = StubTransport().on(.get, "*", .text("hello"))

        _ = try await client(transport, handler: handler).send(
            .get("greeting", query: ["api_key": "k3y"], as: String.self))

        let line = try #require(handler.lines.first)
        #expect(handler.lines.count == 1)
        #expect(line.hasPrefix("GET https://api.example.com/v1/greeting?api_key=REDACTED → 200 OK in "))
        #expect(line.hasSuffix(" ms, 5 bytes (attempt 1)"))
    }

    @Test("levels: info for 2xx, warning for 4xx/5xx, error for failures, debug for details")
    func levels() async throws {
        let handler = CapturingLogHandler(minimumLevel: .debug)
        let transport = StubTransport()
            .on(.get, "v1/fine", .text("ok"))
            .on(.get, "v1/missing", .status(.notFound))
            .on(.get, "v1/down", .failure(URLError(.cannotConnectToHost)))
        let client = client(transport, handler: handler, logsBodies: false)

        _ = try? await client.send(.get("fine", as: String.self))
        _ = try? await client.send(.get("missing", as: String.self))
        _ = try? await client.send(.get("down", as: String.self))

        let summary = handler.entries.filter { $0.0 != .debug }.map(\.0)
        #expect(summary == [.info, .warning, .error])
        #expect(handler.entries.contains { $0.0 == .debug && $0.1.hasPrefix("request headers: ") })
        #expect(!handler.lines.contains { $0.contains("body:") })
        #expect(handler.lines.last?.contains("failed (cannotConnect)") == true)
    }

    @Test("without a handler the middleware is silent and changes nothing")
    func silentByDefault() async throws {
        let transport = StubTransport().on(.get, "*", .text("ok"))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [LoggingMiddleware(sink: nil)])

        #expect(try await client.send(.get("x", as: String.self)) == "ok")
    }

    @Test("logged bodies are capped")
    func bodyCap() async throws {
        let handler = CapturingLogHandler()
        let transport = StubTransport().on(.get, "*", .text(String(repeating: "a", count: 10_000)))
        let logging = LoggingMiddleware(sink: handler, configuration: .init(logsBodies: true, maximumBodyBytes: 100))
        let client = APIClient(baseURL: baseURL, transport: transport, middlewares: [logging])

        _ = try await client.send(.get("x", as: String.self))

        let body = try #require(handler.lines.first { $0.hasPrefix("response body: ") })
        #expect(body == "response body: " + String(repeating: "a", count: 100) + "… (9900 more bytes)")
    }

    @Test("cURL: method, quoted URL, headers and body, runnable when not redacted")
    func curl() throws {
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/v1/notes?api_key=k3y&q=it's")!,
            headers: [.authorization: "Bearer t0ken", .contentType: "application/json"],
            body: .data(Data(#"{"text":"it's","password":"hunter22"}"#.utf8))
        )

        #expect(
            request.curlCommand()
                == #"curl -X 'POST' 'https://api.example.com/v1/notes?api_key=REDACTED&q=it'\''s' -H 'Authorization: REDACTED' -H 'Content-Type: application/json' --data-binary '{"password":"REDACTED","text":"it'\''s"}'"#
        )
        #expect(
            request.curlCommand(redactor: nil)
                == #"curl -X 'POST' 'https://api.example.com/v1/notes?api_key=k3y&q=it'\''s' -H 'Authorization: Bearer t0ken' -H 'Content-Type: application/json' --data-binary '{"text":"it'\''s","password":"hunter22"}'"#
        )
        #expect(
            HTTPRequest(method: .head, url: URL(string: "https://a.example/x")!).curlCommand()
                == "curl --head 'https://a.example/x'")
        let file = HTTPRequest(
            method: .put, url: URL(string: "https://a.example/up")!, body: .file(URL(fileURLWithPath: "/tmp/a b.bin")))
        #expect(file.curlCommand() == "curl -X 'PUT' 'https://a.example/up' --data-binary @'/tmp/a b.bin'")
    }

    @Test("form bodies have their secret fields redacted; binary bodies are summarised")
    func bodyRedaction() {
        let form = Data("user=ada&password=hunter22&grant_type=password".utf8)
        #expect(
            Redactor.standard.redact(body: form, contentType: "application/x-www-form-urlencoded")
                == "user=ada&password=REDACTED&grant_type=password"
        )
        #expect(
            Redactor.standard.redact(body: Data([0, 1, 2, 255]), contentType: "image/png") == "<4 bytes of binary data>"
        )
    }

    @Test("names the user adds are redacted in URLs and headers", arguments: ["X-Tenant", "x-tenant"])
    func additionalNames(name: String) {
        let redactor = Redactor(additionalNames: [name])
        #expect(
            redactor.redact(URL(string: "https://a.example/?x-tenant=acme&q=1")!)
                == "https://a.example/?x-tenant=REDACTED&q=1")
        #expect(
            redactor.redact(["X-Tenant": "acme", "Accept": "text/plain"]) == [
                "X-Tenant: REDACTED", "Accept: text/plain",
            ])
    }
}
