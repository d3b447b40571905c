import Courier
import Foundation

/// `requests` small GETs started at once over CurlTransport: with the client's defaults (256 calls
/// past its door, the rest waiting there), with only the transport's cap on transfers in libcurl's
/// hands (the rest wait in its queue) and with both lifted: what each request in flight costs in
/// memory, from the peak's growth. One "run" is the whole batch.
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
    let defaults = APIClient(baseURL: base, transport: CurlTransport())
    let transportCapped = APIClient(baseURL: base, transport: CurlTransport(), maximumConcurrentRequests: nil)
    let uncapped = APIClient(
        baseURL: base, transport: CurlTransport(configuration: .init(maximumConcurrentTransfers: requests)),
        maximumConcurrentRequests: nil)
    let parked = APIClient(
        baseURL: base, transport: ParkingTransport(batch: requests), maximumConcurrentRequests: nil)
    let parking = ParkingTransport(batch: requests)
    let request = HTTPRequest(url: base.appendingPathComponent("small.json"))
    return Scenario(
        name: "\(requests.formatted()) GETs in flight at once", count: 1, concurrency: 1,
        implementations: [
            .runs("CurlTransport, all \(requests.formatted()) in libcurl's hands", batch(uncapped)),
            .runs("CurlTransport, 256 in libcurl's hands, the rest queued in the transport", batch(transportCapped)),
            .runs("defaults: 256 past the client's door, the rest waiting at it", batch(defaults)),
            .runs("APIClient alone (a transport that holds them all, then answers)", batch(parked)),
            .runs("tasks alone (that transport, called directly)") {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<requests { group.addTask { _ = try await parking.send(request) } }
                    try await group.waitForAll()
                }
            },
        ])
}

/// A transport that holds every request until `batch` of them are waiting, then answers them all:
/// what a request in flight costs on the caller's side (its task, the client's frames, the
/// request), without any transport's own state.
final class ParkingTransport: HTTPTransport {
    private let batch: Int
    private let waiting = Locked([CheckedContinuation<HTTPResponse, Never>]())
    private let response = HTTPResponse(status: .ok, body: Data(#"{"ok": true}"#.utf8))

    init(batch: Int) {
        self.batch = batch
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await withCheckedContinuation { continuation in
            let all = waiting.withLock { waiting -> [CheckedContinuation<HTTPResponse, Never>] in
                waiting.append(continuation)
                guard waiting.count >= batch else { return [] }
                defer { waiting.removeAll() }
                return waiting
            }
            for waiter in all { waiter.resume(returning: response) }
        }
    }
}
