import Foundation
import Testing

@testable import Courier

/// libcurl's own defaults, pinned below Courier's request validation: a transfer handed straight
/// to the loop (as no public call can) still never reads a `file://` URL or speaks `dict://`.
@Suite("libcurl limited to http and https", .enabled(if: CurlTransport.isAvailable))
struct CurlProtocolTests {
    @Test("a file:// or dict:// transfer handed to the loop is refused by libcurl, and no byte comes back")
    func otherSchemesRefused() async throws {
        let sentinel = "S3NTINEL-file-\(UUID().uuidString.prefix(8))"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID()).txt")
        try Data(sentinel.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = CurlTransport.Configuration()
        let loop = try #require(CurlLoops(configuration: configuration)?.next())
        defer { loop.shutdown() }

        for url in [file, try #require(URL(string: "dict://127.0.0.1:9/d:courier"))] {
            let transfer = try CurlTransfer(
                request: HTTPRequest(url: url), budget: .seconds(5), configuration: configuration, consumer: nil)
            let outcome = await Result {
                try await withUnsafeThrowingContinuation { continuation in
                    if transfer.begin(continuation) { loop.start(transfer) }
                }
            }

            guard case .failure(let error) = outcome else {
                Issue.record(
                    "libcurl fetched \(url): \(String(decoding: (try? outcome.get().response.body) ?? Data(), as: UTF8.self))"
                )
                continue
            }
            #expect(!"\(error)".contains(sentinel))
        }
    }
}
