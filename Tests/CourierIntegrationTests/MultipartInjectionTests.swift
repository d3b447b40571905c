import Courier
import Foundation
import Testing

/// Names and file names in a multipart body read back by two real parsers exactly as they went in
/// (percent-encoded where browsers encode): a backslash, a quote or a line break in a name never
/// lets a parser see a parameter or a part that the caller did not send.
@Suite(
    "Multipart names against real parsers",
    .enabled(if: LocalServers.faults != nil && LocalServers.httpbin != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct MultipartInjectionTests {
    private struct EmailPart: Decodable, Equatable {
        let name: String?
        let filename: String?
        let content: String
    }

    private struct HTTPBinForm: Decodable {
        let form: [String: String]
        let files: [String: String]
    }

    private var form: MultipartForm {
        var form = MultipartForm()
        form.append("hello", name: "note\\")
        form.append(Data("payload".utf8), name: "upload\\", filename: "; filename=\"evil.sh", contentType: "text/plain")
        form.append("last", name: "quote\"\r\nX: y")
        return form
    }

    @Test("Python's email parser reads the names and the file name as sent", arguments: TransportKind.allCases)
    func emailParser(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.faults)

        let parts = try await client.send(
            Request(method: .post, path: "multipart", body: .multipart(form), as: [EmailPart].self))

        #expect(
            parts == [
                EmailPart(name: "note%5C", filename: nil, content: "hello"),
                EmailPart(name: "upload%5C", filename: "; filename=%22evil.sh", content: "payload"),
                EmailPart(name: "quote%22%0D%0AX: y", filename: nil, content: "last"),
            ])
    }

    @Test("httpbin's parser (werkzeug) sees the same fields and one file", arguments: TransportKind.allCases)
    func werkzeug(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)

        let echo = try await client.send(
            Request(method: .post, path: "post", body: .multipart(form), as: HTTPBinForm.self))

        // werkzeug decodes %22 (as the HTML standard asks of servers), and nothing else.
        #expect(echo.form == ["note%5C": "hello", "quote\"%0D%0AX: y": "last"])
        #expect(echo.files == ["upload%5C": "payload"])
    }
}
