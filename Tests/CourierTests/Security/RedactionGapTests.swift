import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Secrets the redaction rules used to miss, planted and looked for in every printed form.
@Suite("Redaction gaps")
struct RedactionGapTests {
    private let sentinel = "S3NTINEL-c0ffee"

    @Test("a token in a URL's userinfo, with or without a password")
    func userinfo() {
        for text in ["https://\(sentinel)@api.example.com/x", "https://user:\(sentinel)@api.example.com/x"] {
            let request = HTTPRequest(url: URL(string: text)!)
            for printed in ["\(request)", request.curlCommand(), Redactor.standard.redact(request.url)] {
                #expect(!printed.contains(sentinel), "\(printed)")
            }
        }
    }

    @Test("a query credential under a plain name, set by Credential, is hidden in descriptions and cURL")
    func plainQueryName() {
        let request = Credential.apiKey(sentinel, queryItem: "appid")
            .authenticate(HTTPRequest(url: URL(string: "https://api.example.com/weather?q=paris")!))

        #expect(request.url.query?.contains(sentinel) == true)
        #expect(request.sensitiveQueryItems == ["appid"])
        let error = APIError(.transport(.timedOut), message: "timed out fetching \(request.url)", request: request)
        for printed in ["\(request)", request.curlCommand(), error.description] {
            #expect(!printed.contains(sentinel), "\(printed)")
            #expect(printed.contains("q=paris"), "\(printed)")
        }
    }

    @Test("multipart fields named like secrets are hidden in a logged or rendered body")
    func multipartField() throws {
        var form = MultipartForm()
        form.append("ada", name: "username")
        form.append(sentinel, name: "password")
        form.append(sentinel, name: "api_token")
        let body = try form.encodedData()
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/login")!,
            headers: [.contentType: form.contentType], body: .data(body))

        let rendered = request.curlCommand()
        let logged = Redactor.standard.redact(body: body, contentType: form.contentType)

        for printed in [rendered, logged] {
            #expect(!printed.contains(sentinel), "\(printed)")
            #expect(printed.contains("ada"))
        }
    }

    @Test("JSON secrets nested under a secret-named object or array are hidden")
    func nestedJSON() {
        let body = Data(
            #"{"user": "ada", "credentials": {"user": "x", "value": "\#(sentinel)"}, "token": ["\#(sentinel)"]}"#
                .utf8)

        let logged = Redactor.standard.redact(body: body, contentType: "application/json")

        #expect(!logged.contains(sentinel), "\(logged)")
        #expect(logged.contains("ada"))
    }

    @Test("secret query items in Location, Content-Location and Link headers are hidden in logs")
    func urlValuedHeaders() async throws {
        let transport = StubTransport().on(
            .get, "/start",
            .status(
                .ok,
                headers: [
                    .location: "https://other.example.com/next?access_token=\(sentinel)&page=2",
                    "Content-Location": "/start?sig=\(sentinel)",
                    "Link": "<https://api.example.com/start?page=2&api_key=\(sentinel)>; rel=\"next\"",
                ]))
        let log = CapturingLogHandler()
        let client = APIClient(
            baseURL: URL(string: "https://api.example.com")!, transport: transport,
            middlewares: [LoggingMiddleware(sink: log)])

        _ = try await client.send(.get("start", as: Data.self))

        #expect(!log.lines.isEmpty)
        #expect(log.lines.contains { $0.contains("page=2") })
        for line in log.lines {
            #expect(!line.contains(sentinel), "\(line)")
        }
    }
}
