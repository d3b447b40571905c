import Courier
import Foundation
import Testing

/// Upload progress on both transports for data, file and multipart bodies: monotonic, and ending
/// at the body's size.
@Suite(
    "Upload progress", .enabled(if: LocalServers.sink != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(1))
)
struct UploadProgressTests {
    private struct SinkCount: Decodable { let bytes: Int64 }

    private func check(_ steps: [UploadProgress], total: Int64) {
        // The stream keeps only the newest value for a reader that is behind: on a busy machine a
        // fast upload may show its last step only.
        #expect(!steps.isEmpty)
        #expect(steps.last?.bytesSent == total, "\(steps.suffix(3))")
        #expect(steps.last?.bytesExpected == total)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.bytesSent < $1.bytesSent }, "not monotonic: \(steps)")
    }

    private func upload(_ client: APIClient, _ body: RequestBody) async throws -> (SinkCount, [UploadProgress]) {
        let upload = client.upload(Request(method: .post, path: "upload", body: body, as: SinkCount.self))
        let collector = Task {
            var steps: [UploadProgress] = []
            for await step in upload.progress { steps.append(step) }
            return steps
        }
        let count = try await upload.value()
        return (count, await collector.value)
    }

    @Test("an in-memory body", arguments: TransportKind.allCases)
    func dataBody(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.sink)
        let body = Data(repeating: 7, count: 8 << 20)
        let (count, steps) = try await upload(client, .data(body, contentType: "application/octet-stream"))
        #expect(count.bytes == Int64(body.count))
        check(steps, total: Int64(body.count))
    }

    @Test("a file body, read as it is sent", arguments: TransportKind.allCases)
    func fileBody(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.sink)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-up-\(UUID().uuidString)")
        try Data(repeating: 3, count: 6_000_001).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (count, steps) = try await upload(client, .file(file))
        #expect(count.bytes == 6_000_001)
        check(steps, total: 6_000_001)
    }

    @Test("a multipart form with a file part", arguments: TransportKind.allCases)
    func multipart(kind: TransportKind) async throws {
        let client = kind.client(LocalServers.sink)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-up-\(UUID().uuidString)")
        try Data(repeating: 5, count: 3_000_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm()
        form.append("holiday", name: "caption")
        form.append(fileAt: file, name: "photo", filename: "photo.jpg")
        let (count, steps) = try await upload(client, .multipart(form))
        #expect(count.bytes > 3_000_000)
        check(steps, total: count.bytes)
    }
}
