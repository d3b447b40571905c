import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Multipart and other bodies")
struct MultipartFormTests {
    private func send(_ body: RequestBody, headers: HTTPHeaders = [:]) async throws -> HTTPRequest {
        let transport = StubTransport().on(.post, "*", .status(.noContent))
        let client = APIClient(baseURL: baseURL, transport: transport)
        _ = try await client.send(
            Request(method: .post, path: "upload", headers: headers, body: body, as: EmptyResponse.self))
        return try #require(transport.requests.first)
    }

    @Test("fields and files are framed exactly, with guessed types and escaped names")
    func framing() async throws {
        var form = MultipartForm(boundary: "BOUNDARY")
        form.append("A day at the beach", name: "caption")
        form.append(Data([0x89, 0x50]), name: "photo", filename: "beach \"1\".png")
        form.append(Data("{}".utf8), name: "meta", filename: "résumé.json", headers: ["X-Part": "1"])

        let request = try await send(.multipart(form))

        let expected =
            "--BOUNDARY\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nA day at the beach\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"beach %221%22.png\"\r\n"
            + "Content-Type: image/png\r\n\r\n\u{89}P\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"meta\"; filename=\"résumé.json\"\r\n"
            + "Content-Type: application/json\r\nX-Part: 1\r\n\r\n{}\r\n--BOUNDARY--\r\n"
        var expectedData = Data(expected.utf8)
        // The PNG bytes are raw, not the UTF-8 form of U+0089.
        expectedData = expectedData.replacingOccurrences(of: Data("\u{89}".utf8), with: Data([0x89]))
        #expect(request.body == .data(expectedData))
        #expect(request.headers[.contentType] == "multipart/form-data; boundary=BOUNDARY")
        #expect(request.headers[.contentLength] == String(expectedData.count))
    }

    @Test("a form above the threshold is streamed from a private temporary file, removed afterwards")
    func spillsToDisk() async throws {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-test-\(UUID().uuidString).bin")
        try Data(repeating: 7, count: 300_000).write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        var form = MultipartForm(boundary: "B")
        form.append(fileAt: source, name: "file")
        let head =
            "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(source.lastPathComponent)\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        let expectedLength = head.utf8.count + 300_000 + "\r\n--B--\r\n".utf8.count
        let transport = StubTransport().on(.post, "*") { request in
            guard case .file(let url) = request.body else { return .status(.badRequest, body: "not a file body") }
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
            let data = try Data(contentsOf: url)
            let intact = data.count == expectedLength && permissions == 0o600
            return .text(intact ? url.path : "bad size \(data.count) or permissions \(String(permissions, radix: 8))")
        }
        let client = APIClient(baseURL: baseURL, transport: transport)

        let path = try await client.send(
            Request(method: .post, path: "upload", body: .multipart(form, streamingAbove: 100_000), as: String.self)
        )

        #expect(path.hasPrefix("/"), "\(path)")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(transport.requests.first?.headers[.contentLength] == String(expectedLength))
    }

    @Test("a missing file fails the request before any I/O")
    func missingFile() async throws {
        var form = MultipartForm()
        form.append(fileAt: URL(fileURLWithPath: "/nonexistent/x.png"), name: "f")
        let transport = StubTransport()
        let client = APIClient(baseURL: baseURL, transport: transport)

        for body in [RequestBody.multipart(form), .file(URL(fileURLWithPath: "/nonexistent/y.bin"))] {
            let error = try #require(
                await #expect(throws: APIError.self) {
                    try await client.send(Request(method: .post, path: "u", body: body, as: Data.self))
                })
            #expect(error.kind == .invalidRequest)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test("a part header with CR or LF is refused")
    func badPartHeader() async throws {
        var form = MultipartForm()
        form.append("v", name: "f", headers: ["X-Bad": "a\r\nb"])
        let client = APIClient(baseURL: baseURL, transport: StubTransport())

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(method: .post, path: "u", body: .multipart(form), as: Data.self))
            })

        #expect(error.kind == .invalidRequest)
    }

    @Test("a file body is sent from disk with its length and guessed type")
    func fileBody() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-test-\(UUID().uuidString).json")
        try Data("[1,2,3]".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let request = try await send(.file(file))

        #expect(request.body == .file(file))
        #expect(request.headers[.contentType] == "application/json")
        #expect(request.headers[.contentLength] == "7")
    }

    @Test("form bodies from an Encodable, with spaces as + or %20")
    func encodableForm() async throws {
        struct Login: Encodable, Sendable {
            let userName: String
            let password: String
        }
        let login = Login(userName: "a b", password: "p&q")

        let plus = try await send(.form(.encoding(login, with: QueryEncoder(keys: .convertToSnakeCase))))
        let percent = try await send(.form(.encoding(login), spaces: .percentEncoded))

        #expect(plus.body == .data(Data("user_name=a+b&password=p%26q".utf8)))
        #expect(percent.body == .data(Data("userName=a%20b&password=p%26q".utf8)))
        #expect(plus.headers[.contentLength] == "28")
    }
}

extension Data {
    fileprivate func replacingOccurrences(of target: Data, with replacement: Data) -> Data {
        var result = Data()
        var index = startIndex
        while let range = self[index...].firstRange(of: target) {
            result += self[index..<range.lowerBound] + replacement
            index = range.upperBound
        }
        return result + self[index...]
    }
}
