import Courier
import Foundation
import Testing

/// `Link: rel="next"` pagination on real sockets: a credential never follows a link off the origin.
@Suite(
    "Pagination links on real sockets",
    .enabled(if: LocalServers.faults != nil, "start the tests with scripts/test"), .timeLimit(.minutes(1))
)
struct PaginationLinkTests {
    private struct Count: Decodable { let count: Int }

    @Test("a bearer token never follows a Link to another port of the same host", arguments: TransportKind.allCases)
    func otherPort(kind: TransportKind) async throws {
        let faults = try #require(LocalServers.faults)
        let key = "link-port-\(UUID())"
        let client = APIClient(
            baseURL: faults, transport: kind.make(), middlewares: [AuthMiddleware(credential: .bearer("link-token"))])

        var pages: [[Int]] = []
        let error = await #expect(throws: APIError.self) {
            for try await page in client.pages(
                following: Request.get("linked-page", query: ["key": key], as: [Int].self))
            {
                pages.append(page)
            }
        }

        #expect(pages == [[1]])
        #expect(error?.kind == .invalidRequest)
        let counter = APIClient(baseURL: faults, transport: CurlTransport())
        // Only the first page's request carried the key to the fault server; the other port saw none.
        #expect(try await counter.send(.get("count", query: ["key": key], as: Count.self)).count == 1)
    }
}
