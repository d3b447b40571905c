import Courier
import CourierImages
import Foundation
import Testing

/// The image loader against a hostile server: an error page is never read whole.
@Suite(
    "The image loader and hostile error pages",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct ImageErrorBodyTests {
    @Test(
        "a 50 MiB error page fails as its status at once, with at most 64 KiB of it kept",
        arguments: TransportKind.allCases)
    func hugeErrorPage(kind: TransportKind) async throws {
        let faults = try #require(LocalServers.faults)
        let loader = try ImageLoader(client: APIClient(baseURL: faults, transport: kind.make()))

        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            try await loader.image(for: faults.appending(path: "huge-error"))
        }

        #expect(error?.kind == .unacceptableStatus(.internalServerError))
        #expect((error?.response?.body.count ?? .max) <= 64 * 1024)
        // An end, not a hang or the whole 50 MiB at a crawl; loose, as this pass runs beside every other.
        #expect(ContinuousClock.now - start < .seconds(45))
    }
}
