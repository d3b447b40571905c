import Courier
import CourierTesting
import Foundation
import Testing

/// What cost a new user the most time, each pinned: the route style on a par with endpoints,
/// downloads that check before they fetch, and requests that ask for what they expect.
@Suite("First-day traps")
struct FirstDayTrapsTests {
    struct Issue: Decodable, Sendable { let id: Int }
    struct GitHubError: ServerErrorBody {
        let message: String
        let documentationURL: String?
        var serverMessage: String? { message }
        enum CodingKeys: String, CodingKey {
            case message
            case documentationURL = "documentation_url"
        }
    }

    /// An enum router that declares its API's error body once.
    enum GitHub: Route {
        typealias ErrorBody = GitHubError
        case issues(repo: String)
        var path: Path {
            switch self {
            case .issues(let repo): "repos/\(repo)/issues"
            }
        }
    }

    private static let errorJSON = #"{"message": "Not Found", "documentation_url": "https://docs.example/404"}"#

    @Test("a route declares its error type, and send(_:as:) decodes it")
    func routeErrorType() async throws {
        let stub = StubTransport().on(.get, "*", .json(Self.errorJSON, status: .notFound))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let error = await #expect(throws: APIError.self) {
            try await client.send(GitHub.issues(repo: "a/b"), as: [Issue].self)
        }
        #expect(error?.errorBody(as: GitHubError.self)?.documentationURL == "https://docs.example/404")
        #expect(error?.serverMessage == "Not Found")
    }

    @Test("errorBody(as:) decodes the body of an inline call, whose declared error type is the default")
    func inlineErrorBody() async throws {
        let stub = StubTransport().on(.get, "*", .json(Self.errorJSON, status: .notFound))
        let client = APIClient(baseURL: baseURL, transport: stub)
        let error = await #expect(throws: APIError.self) {
            try await client.send(.get("repos/a/b/issues", as: [Issue].self))
        }
        #expect(error?.errorBody(as: GitHubError.self)?.message == "Not Found")
        #expect(error?.errorBody(as: ServerMessage.self)?.serverMessage == "Not Found")
    }

    @Test("Link-header pagination takes a route, like an inline request")
    func paginationWithRoute() async throws {
        let stub = StubTransport()
            .on(
                .get, "v1/repos/a%2Fb/issues",
                .json(#"[{"id": 1}]"#, headers: ["Link": "<https://api.example.com/v1/page2>; rel=\"next\""])
            )
            .on(.get, "v1/page2", .json(#"[{"id": 2}]"#))
        let client = APIClient(baseURL: baseURL, transport: stub)
        var ids: [Int] = []
        for try await page in client.pages(following: GitHub.issues(repo: "a/b"), as: [Issue].self) {
            ids += page.map(\.id)
        }
        #expect(ids == [1, 2])
    }

    @Test("a download into a folder where the file exists fails before anything is sent")
    func downloadIntoFolderChecksFirst() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("old".utf8).write(to: folder.appendingPathComponent("report.pdf"))
        let stub = StubTransport().on(.get, "*", .text("new"))
        let client = APIClient(baseURL: baseURL, transport: stub)

        let error = await #expect(throws: APIError.self) {
            try await client.download(Request.get("exports/report.pdf", as: Data.self), into: folder).file()
        }
        #expect(error?.kind == .invalidRequest)
        #expect(stub.requests.isEmpty)
    }

    @Test("a server-suggested name that exists is refused at the head, before the body is read")
    func suggestedNameChecksAtHead() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("old".utf8).write(to: folder.appendingPathComponent("named.txt"))
        let stub = StubTransport().on(
            .get, "*",
            .response(headers: ["Content-Disposition": "attachment; filename=\"named.txt\""], body: Data("new".utf8)))
        let client = APIClient(baseURL: baseURL, transport: stub)

        let error = await #expect(throws: APIError.self) {
            try await client.download(Request.get("export", as: Data.self), into: folder).file()
        }
        #expect(error?.message.contains("exists already") == true)
        #expect(try String(contentsOf: folder.appendingPathComponent("named.txt"), encoding: .utf8) == "old")
    }

    @Test("a Data, String, download or stream call asks for any type; JSON calls and the route's own Accept are kept")
    func acceptHeaders() async throws {
        let stub = StubTransport().on(.get, "*", .json("{}"))
        let client = APIClient(baseURL: baseURL, transport: stub)
        _ = try await client.send(.get("raw", as: Data.self))
        _ = try await client.send(.get("text", as: String.self))
        _ = try await client.send(.get("json", as: [String: String].self))
        _ = try await client.send(.get("csv", headers: [.accept: "text/csv"], as: Data.self))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await client.download(Request.get("file", as: Data.self), into: folder).file()

        #expect(stub.requests.map { $0.headers[.accept] } == ["*/*", "*/*", "application/json", "text/csv", "*/*"])
    }
}
