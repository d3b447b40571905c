import Courier
import CourierTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Cancellation and the completion-handler bridge")
struct CancellationTests {
    @Test("a transport reporting URLError.cancelled surfaces as CancellationError")
    func urlErrorCancelled() async throws {
        let client = APIClient(
            baseURL: baseURL, transport: StubTransport().on(.get, "*", .failure(URLError(.cancelled))))

        await #expect(throws: CancellationError.self) { try await client.send(SearchSongs(term: "x")) }
    }

    @Test("the completion handler gets the value on the given queue")
    func completionSuccess() async throws {
        let client = APIClient(baseURL: baseURL, transport: StubTransport().on(.get, "*", .json(samplePage)))
        let queue = DispatchQueue(label: "courier.tests.completion")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "mine")

        let (result, label) = await withCheckedContinuation { continuation in
            client.send(SearchSongs(term: "x"), queue: queue) { result in
                continuation.resume(returning: (result, DispatchQueue.getSpecific(key: key)))
            }
        }

        #expect(try result.get() == samplePage)
        #expect(label == "mine")
    }

    @Test("the completion handler gets the typed APIError")
    func completionFailure() async throws {
        let client = APIClient(
            baseURL: baseURL, transport: StubTransport().on(.get, "*", .json(#"{"errorMessage": "bad"}"#, status: 400)))

        let result = await withCheckedContinuation { continuation in
            client.send(SearchSongs(term: "x"), queue: .global()) { continuation.resume(returning: $0) }
        }

        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.kind == .unacceptableStatus(.badRequest))
        #expect(error.errorBody(as: ITunesError.self)?.errorMessage == "bad")
    }
}
