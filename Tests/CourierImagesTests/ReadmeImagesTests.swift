import Courier
import CourierImages
import CourierTesting
import Foundation
import Testing

/// The README's download and image samples, compiled and run against the stub transport.
@Suite("README download and image samples")
struct ReadmeImagesTests {
    private final class Bar: Sendable {
        let steps = Locked(0)
        func update(_ progress: DownloadProgress) { steps.withLock { $0 += 1 } }
    }

    @Test("the samples compile and do what the README says")
    func samples() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        let caches = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("big.iso")
        let transport = StubTransport()
            .on(.get, "/releases/big.iso", .response(headers: [.contentLength: "4"], body: Data([1, 2, 3, 4])))
            .on(
                .get, "/exports/latest",
                .response(headers: [.contentDisposition: #"attachment; filename="report.csv""#], body: Data("a,b".utf8))
            )
            .on(.get, "/posters/p.png", .response(body: TestImages.png(width: 3, height: 2)))
        let client = APIClient(baseURL: URL(string: "https://files.example.com")!, transport: transport)
        let posterURL = URL(string: "https://files.example.com/posters/p.png")!
        let nextPagePosterURLs = [posterURL]
        let bar = Bar()

        let download = client.download(Request.get("releases/big.iso", as: Data.self), to: destination)
        for await step in download.progress { print(step) }
        let file = try await download.file()
        let named = try await client.download(Request.get("exports/latest", as: Data.self), into: folder).file()

        let loader = try ImageLoader(
            client: client, configuration: .init(directory: caches.appendingPathComponent("posters")))
        let poster = try await loader.image(for: posterURL) { progress in bar.update(progress) }
        await loader.prefetch(nextPagePosterURLs).value

        #expect(try Data(contentsOf: file) == Data([1, 2, 3, 4]))
        #expect(named.lastPathComponent == "report.csv")
        #expect(poster.pixelWidth == 3 && poster.pixelHeight == 2 && bar.steps.withLock { $0 } > 0)
        #expect(transport.requests(to: "/posters/p.png").count == 1)
    }
}
