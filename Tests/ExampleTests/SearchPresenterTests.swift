import Courier
import CourierTesting
import Foundation
import ITunesSearch
import Testing

@testable import MediaSearchCommand

/// Records what the presenter tells it.
private final class RecordingView: SearchView, @unchecked Sendable {
    // @unchecked Sendable: `events` is only touched on the presenter's serial queue, then read
    // after `done` is signalled.
    var events: [String] = []
    let done = DispatchSemaphore(value: 0)

    func searched(_ items: [ITunesItem], hasMore: Bool) {
        events.append("searched \(items.count) more:\(hasMore)")
        done.signal()
    }

    func nextPageFetched(_ items: [ITunesItem], hasMore: Bool) {
        events.append("next \(items.count) more:\(hasMore) first:\(items.first?.title ?? "-")")
        done.signal()
    }

    func failed(_ message: String) {
        events.append("failed \(message)")
        done.signal()
    }
}

@Suite("Search presenter over the completion-handler API")
struct SearchPresenterTests {
    /// Waits for the view's next event. The bound only ends a test whose event never comes; a loaded
    /// CI machine may take seconds to deliver one.
    private func waitForEvent(_ view: RecordingView) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = view.done.wait(timeout: .now() + 120)
                continuation.resume()
            }
        }
    }

    @Test("searched, then next pages fetched until a short page")
    func firstThenNextPages() async {
        let view = RecordingView()
        let client = ITunesClient(transport: OfflineSamples.transport()).client
        let presenter = SearchPresenter(client: client, view: view, queue: DispatchQueue(label: "view"))

        presenter.search("jack johnson", media: .music)
        await waitForEvent(view)
        presenter.fetchNextPage()
        await waitForEvent(view)
        presenter.fetchNextPage()
        await waitForEvent(view)
        presenter.fetchNextPage()  // nothing more: no event

        #expect(
            view.events == [
                "searched 25 more:true", "next 25 more:true first:Cookie Jar", "next 13 more:false first:Hope",
            ])
    }

    @Test("a failure is reported with the server's message")
    func failure() async {
        let view = RecordingView()
        let transport = StubTransport().on(
            .get, "*", .json(#"{"errorMessage": "Invalid value(s)"}"#, status: .badRequest))
        let presenter = SearchPresenter(
            client: ITunesClient(transport: transport).client, view: view, queue: DispatchQueue(label: "view"))

        presenter.search("x")
        await waitForEvent(view)

        #expect(view.events == ["failed Invalid value(s)"])
    }
}
