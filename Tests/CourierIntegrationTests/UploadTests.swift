import Courier
import Foundation
import Testing

private struct SinkCount: Decodable, Sendable {
    let bytes: Int64
    let contentLength: String?
    let contentType: String?

    enum CodingKeys: String, CodingKey {
        case bytes
        case contentLength = "content_length"
        case contentType = "content_type"
    }
}

@Suite(
    "Large uploads", .enabled(if: LocalServers.sink != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(3))
)
struct UploadTests {

    /// A sparse file of `size` bytes: instant to make, no disk space used.
    private func sparseFile(size: UInt64) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-large-\(UUID().uuidString).bin")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: size)
        try handle.close()
        return url
    }

    @Test(
        "a 1 GiB multipart upload arrives whole, reports its progress to the end, and grows the process by less than 64 MB",
        arguments: TransportKind.defaults)
    func gigabyteMultipart(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.sink)
        let size: UInt64 = 1 << 30
        let file = try sparseFile(size: size)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm()
        form.append("large", name: "caption")
        form.append(fileAt: file, name: "file", filename: "large.bin")

        let baseline = ProcessMemory.residentBytes() ?? 0
        ProcessMemory.resetPeak()
        let upload = client.upload(Request(method: .post, path: "upload", body: .multipart(form), as: SinkCount.self))
        let progress = Task {
            var steps: [UploadProgress] = []
            for await step in upload.progress { steps.append(step) }
            return steps
        }
        let count = try await upload.value()
        let peak = ProcessMemory.peakBytes() ?? 0
        let steps = await progress.value

        #expect(steps.count > 2)
        #expect(steps.last == UploadProgress(bytesSent: count.bytes, bytesExpected: count.bytes))
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.bytesSent < $1.bytesSent })

        #expect(count.bytes > Int64(size))
        #expect(count.contentLength == String(count.bytes))
        #expect(count.contentType == form.contentType)
        if ProcessMemory.isAvailable {
            let growth = peak - baseline
            #expect(growth < 64 << 20, "peak grew by \(growth >> 20) MiB")
        }
    }

    @Test(
        "a 256 MiB stream body from a producer faster than the network grows the process by less than 32 MiB",
        arguments: TransportKind.defaults)
    func fastProducer(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.sink)
        let chunks = GeneratedChunks(count: 4096, size: 65_536)
        let body = RequestBody.stream(HTTPBodyStream(chunks))
        let baseline = ProcessMemory.residentBytes() ?? 0
        ProcessMemory.resetPeak()
        let count = try await client.send(Request(method: .post, path: "upload", body: body, as: SinkCount.self))
        let peak = ProcessMemory.peakBytes() ?? 0
        #expect(count.bytes == 256 << 20)
        if ProcessMemory.isAvailable {
            let growth = peak - baseline
            #expect(growth < 32 << 20, "peak grew by \(growth >> 20) MiB")
        }
    }

    @Test("a file body is streamed with its exact length", arguments: TransportKind.defaults)
    func fileBody(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.sink)
        let file = try sparseFile(size: 5_000_001)
        defer { try? FileManager.default.removeItem(at: file) }

        let count = try await client.send(Request(method: .put, path: "upload", body: .file(file), as: SinkCount.self))

        #expect(count.bytes == 5_000_001)
        #expect(count.contentLength == "5000001")
    }
}
