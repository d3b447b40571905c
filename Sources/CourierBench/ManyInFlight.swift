import Courier
import Foundation

/// `requests` small GETs started at once, over CurlTransport with its default cap on transfers in
/// libcurl's hands (the rest wait in its queue) and with the cap lifted: what each request in
/// flight costs in memory, from the peak's growth. One "run" is the whole batch.
func manyInFlightScenario(base: URL, requests: Int) -> Scenario {
    func batch(_ client: APIClient) -> @Sendable () async throws -> Void {
        {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<requests {
                    group.addTask { _ = try await client.send(.get("small.json", as: Data.self)) }
                }
                try await group.waitForAll()
            }
        }
    }
    let capped = APIClient(baseURL: base, transport: CurlTransport())
    let uncapped = APIClient(
        baseURL: base, transport: CurlTransport(configuration: .init(maximumConcurrentTransfers: requests)))
    return Scenario(
        name: "\(requests.formatted()) GETs in flight at once", count: 1, concurrency: 1,
        implementations: [
            .runs("CurlTransport, all \(requests.formatted()) in libcurl's hands", batch(uncapped)),
            .runs("CurlTransport, 256 at a time (default), the rest queued", batch(capped)),
        ])
}
