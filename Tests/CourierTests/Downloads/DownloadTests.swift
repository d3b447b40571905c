import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Downloads to disk")
struct DownloadTests {
    private let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    private var leftovers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix(".courier-") }
    }

    private func client(_ transport: StubTransport) -> APIClient {
        APIClient(baseURL: baseURL, transport: transport)
    }

    @Test("the body is streamed to the file, with progress up to the whole size")
    func streamsToFile() async throws {
        let body = Data((0..<300_000).map { UInt8($0 % 251) })
        let transport = StubTransport().on(
            .get, "*", .response(status: .ok, headers: [.contentLength: "300000"], body: body))
        let destination = folder.appendingPathComponent("file.bin")

        let download = client(transport).download(Request.get("file", as: Data.self), to: destination)
        var events: [DownloadProgress] = []
        for await event in download.progress { events.append(event) }
        let file = try await download.file()

        #expect(file == destination)
        #expect(try Data(contentsOf: file) == body)
        #expect(events.last == DownloadProgress(bytesReceived: 300_000, bytesExpected: 300_000))
        #expect(events.last?.fractionCompleted == 1)
        #expect(leftovers.isEmpty)
    }

    @Test("an existing file is never overwritten unless asked; nothing is sent")
    func noOverwrite() async throws {
        let transport = StubTransport().on(.get, "*", .text("new"))
        let destination = folder.appendingPathComponent("kept.txt")
        try Data("old".utf8).write(to: destination)

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client(transport).download(Request.get("f", as: Data.self), to: destination).file()
            })
        let replaced = try await client(transport).download(
            Request.get("f", as: Data.self), to: destination, options: DownloadOptions(overwritesExisting: true)
        ).file()

        #expect(error.kind == .invalidRequest && error.message.contains("exists already"))
        #expect(transport.requests.count == 1)
        #expect(try String(contentsOf: replaced, encoding: .utf8) == "new")
    }

    @Test("an error status fails with the server's message; the temporary file is removed")
    func errorStatus() async throws {
        let transport = StubTransport().on(.get, "*", .json(#"{"message": "no such file"}"#, status: .notFound))
        let destination = folder.appendingPathComponent("missing.bin")

        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client(transport).download(Request.get("f", as: Data.self), to: destination).file()
            })

        #expect(error.kind == .unacceptableStatus(.notFound))
        #expect(error.serverMessage == "no such file")
        #expect(!FileManager.default.fileExists(atPath: destination.path) && leftovers.isEmpty)
    }

    @Test("a body over the maximum size fails as responseTooLarge, announced or not")
    func maximumSize() async throws {
        let announced = StubTransport().on(
            .get, "*", .response(headers: [.contentLength: "5000"], body: Data(count: 5000)))
        let unannounced = StubTransport().on(.get, "*", .response(body: Data(count: 200_000)))
        let options = DownloadOptions(maximumSize: 4096)

        for transport in [announced, unannounced] {
            let error = try #require(
                await #expect(throws: APIError.self) {
                    try await client(transport).download(
                        Request.get("f", as: Data.self), to: folder.appendingPathComponent("big"), options: options
                    ).file()
                })
            #expect(error.kind == .transport(.responseTooLarge))
        }
        #expect(leftovers.isEmpty)
    }

    @Test("cancelling removes the temporary file and leaves no destination")
    func cancellation() async throws {
        let transport = StubTransport().on(.get, "*", .response(body: Data(count: 10)).delayed(by: .seconds(10)))
        let destination = folder.appendingPathComponent("never.bin")
        let download = client(transport).download(Request.get("f", as: Data.self), to: destination)

        #expect(try await eventually { leftovers.count == 1 })
        download.cancel()

        await #expect(throws: CancellationError.self) { try await download.file() }
        #expect(leftovers.isEmpty && !FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(
        "server-suggested names are made safe",
        arguments: [
            (#"attachment; filename="../../x.txt""#, "x.txt"), (#"attachment; filename="/etc/passwd""#, "passwd"),
            (#"attachment; filename="""#, "report.csv"), (#"attachment; filename=".bashrc""#, "bashrc"),
            (#"attachment; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.pdf"#, "naïve résumé.pdf"),
            (#"attachment; filename="..\..\win.ini""#, "win.ini"),
        ]
    )
    func suggestedNames(disposition: String, expected: String) async throws {
        let transport = StubTransport().on(
            .get, "*", .response(headers: [.contentDisposition: disposition], body: Data("x".utf8)))

        let file = try await client(transport).download(Request.get("exports/report.csv", as: Data.self), into: folder)
            .file()

        #expect(file.path == folder.appendingPathComponent(expected).path)
    }
}
