import Courier
import CourierImages
import CourierTesting
import Foundation
import Testing

@Suite("Image values")
struct ImageDataTests {
    @Test(
        "format and pixel size come from the bytes",
        arguments: [
            (TestImages.png(width: 37, height: 21), ImageFormat.png, 37, 21),
            (TestImages.gif(width: 5, height: 3), .gif, 5, 3),
            (TestImages.bmp(width: 7, height: 9), .bmp, 7, 9),
            (TestImages.jpeg(width: 500, height: 750), .jpeg, 500, 750),
            (TestImages.webp(width: 300, height: 200, kind: "VP8L"), .webp, 300, 200),
            (TestImages.webp(width: 640, height: 480, kind: "VP8 "), .webp, 640, 480),
            (TestImages.webp(width: 4000, height: 3000, kind: "VP8X"), .webp, 4000, 3000),
        ]
    )
    func sniffing(data: Data, format: ImageFormat, width: Int, height: Int) throws {
        let image = try ImageData(data: data)

        #expect(image.format == format && image.pixelWidth == width && image.pixelHeight == height)
        #expect(image.data == data)
    }

    @Test(
        "bytes that are not an image, or a cut header, are typed decoding errors",
        arguments: [
            Data("<html>error</html>".utf8), Data(), TestImages.png(width: 2, height: 2).prefix(20),
            TestImages.jpeg(width: 10, height: 10).prefix(30), Data([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]),
        ])
    func notImages(data: Data) {
        let error = #expect(throws: APIError.self) { try ImageData(data: data) }
        #expect(error?.kind == .decoding)
    }

    @Test("every prefix of every test image, and random bytes after each signature, never crash")
    func hostileHeaders() {
        var generator = SystemRandomNumberGenerator()
        let samples = [
            TestImages.png(width: 3, height: 3), TestImages.gif(width: 3, height: 3),
            TestImages.bmp(width: 3, height: 3),
            TestImages.jpeg(width: 3, height: 3), TestImages.webp(width: 3, height: 3, kind: "VP8X"),
        ]
        var decoded = 0
        for sample in samples {
            for length in 0...sample.count where (try? ImageData(data: sample.prefix(length))) != nil { decoded += 1 }
            for _ in 0..<200 {
                var bytes = [UInt8](sample.prefix(4))
                bytes += (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                _ = try? ImageData(data: Data(bytes))
            }
        }
        #expect(decoded >= samples.count)
    }

    @Test("an image endpoint decodes through APIClient; an HTML page with image/png is refused")
    func throughClient() async throws {
        let png = TestImages.png(width: 4, height: 4)
        let transport = StubTransport()
            .on(.get, "/poster.png", .response(headers: [.contentType: "image/png"], body: png))
            .on(.get, "/fake.png", .response(headers: [.contentType: "image/png"], body: Data("<html>".utf8)))
        let client = APIClient(baseURL: URL(string: "https://api.example.com")!, transport: transport)

        let image = try await client.send(ImageRequest(url: URL(string: "https://img.example.com/poster.png")!))
        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(ImageRequest(url: URL(string: "https://img.example.com/fake.png")!))
            })

        #expect(image.pixelWidth == 4)
        #expect(error.kind == .decoding && error.description.contains("not a PNG, JPEG, GIF, WebP or BMP image"))
        #expect(transport.requests.first?.headers[.accept] == "image/*")
    }
}
