import Courier
import Foundation
import Testing

/// A token refresh made while a stream, a download, an upload or an event source starts is a call
/// of its own: its response never lands in the caller's stream or file, and its body never counts
/// in the caller's upload progress (the refresh used to inherit the caller's per-call state).
@Suite(
    "Call context on real sockets", .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(2))
)
struct CallContextIntegrationTests {
    private struct Sunk: Decodable, Sendable { let bytes: Int }

    /// A provider whose refresh posts `tokenBody` to the fault server's `/sink` through `client`,
    /// as a token endpoint would be called, and then hands out the token `/auth/…` accepts.
    private final class CallingTokens: CredentialProvider {
        let client: APIClient
        let tokenBody = Data(repeating: 0x74, count: 80_000)

        init(client: APIClient) { self.client = client }

        func credential() async throws -> Credential { .bearer("stale") }

        func refresh(rejecting credential: Credential) async throws -> Credential? {
            var request = Request<Sunk>(method: .post, path: "sink", as: Sunk.self)
            request.body = .data(tokenBody)
            let sunk = try await client.send(request)
            #expect(sunk.bytes == tokenBody.count, "the token call's own body reached the token endpoint")
            return .bearer("fresh")
        }
    }

    private func client(_ kind: TransportKind) -> APIClient {
        let tokens = CallingTokens(client: kind.client(LocalServers.faults))
        return kind.client(LocalServers.faults, middlewares: [AuthMiddleware(provider: tokens)])
    }

    @Test("a stream holds only its own exchange's bytes", arguments: TransportKind.defaults)
    func stream(kind: TransportKind) async throws {
        var received = Data()
        for try await piece in try await client(kind).stream(Request<Data>(path: "auth/ok")) { received += piece }
        #expect(String(decoding: received, as: UTF8.self) == #"{"ok": true}"#)
    }

    @Test("a download's file holds only its own exchange's bytes", arguments: TransportKind.defaults)
    func download(kind: TransportKind) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try await client(kind).download(
            .get("auth/ok", as: Data.self), to: folder.appendingPathComponent("ok")
        )
        .file()
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == #"{"ok": true}"#)
    }

    @Test("an upload's progress counts only its own body", arguments: TransportKind.defaults)
    func upload(kind: TransportKind) async throws {
        let body = Data(repeating: 0x75, count: 50_000)
        var route = Request<Data>(method: .post, path: "auth/sink", as: Data.self)
        route.body = .data(body)
        let upload = client(kind).upload(route, as: Sunk.self)
        let steps = Task {
            var steps: [UploadProgress] = []
            for await step in upload.progress { steps.append(step) }
            return steps
        }
        #expect(try await upload.value().bytes == body.count)
        let seen = await steps.value
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.bytesExpected == Int64(body.count) }, "progress: \(seen)")
        #expect(seen.last?.bytesSent == Int64(body.count), "progress: \(seen)")
    }

    @Test("an event source reads only its own events", arguments: TransportKind.defaults)
    func eventSource(kind: TransportKind) async throws {
        let key = "context-\(kind)-\(UUID().uuidString)"
        var events = client(kind).events(Request<Data>(path: "auth/sse/script", query: ["key": key]))
            .makeAsyncIterator()
        #expect(try await events.next()?.data == "one")
        #expect(try await events.next()?.data == "two\nlines")
    }
}
