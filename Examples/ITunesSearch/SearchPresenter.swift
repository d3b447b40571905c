import Courier
import Foundation

/// What a search screen is told by ``SearchPresenter``: the first page, each next page, or a failure.
public protocol SearchView: AnyObject, Sendable {
    /// The first page of a new search arrived.
    func searched(_ items: [ITunesItem], hasMore: Bool)
    /// The next page arrived; append its items.
    func nextPageFetched(_ items: [ITunesItem], hasMore: Bool)
    /// The search failed; show `message`.
    func failed(_ message: String)
}

/// The first-page/next-page flow of a search screen, over the completion-handler API: the shape
/// of the app Courier grew from, without its copy-pasted request code.
///
/// ```swift
/// let presenter = SearchPresenter(client: client, view: screen)
/// presenter.search("jack johnson", media: .music)   // → screen.searched(…)
/// presenter.fetchNextPage()                         // → screen.nextPageFetched(…)
/// ```
///
/// A new search cancels a page still loading; callbacks arrive on `queue`.
///
/// `@unchecked Sendable`: the mutable state (`term`, `offset`, `loading`, …) is only touched inside
/// `lock`.
public final class SearchPresenter: @unchecked Sendable {
    private let client: any HTTPClient
    private weak var view: (any SearchView)?
    private let queue: DispatchQueue
    private let pageSize: Int
    private let lock = NSLock()
    private var term = ""
    private var media = ITunesMedia.all
    private var offset = 0
    private var hasMore = false
    private var loading: RequestHandle?
    private var generation = 0

    /// Creates a presenter that tells `view`, on `queue`.
    public init(
        client: any HTTPClient, view: any SearchView, pageSize: Int = ITunesClient.pageSize,
        queue: DispatchQueue = .main
    ) {
        self.client = client
        self.view = view
        self.pageSize = pageSize
        self.queue = queue
    }

    /// Starts a new search; the view is told ``SearchView/searched(_:hasMore:)``.
    public func search(_ term: String, media: ITunesMedia = .all) {
        lock.lock()
        loading?.cancel()
        self.term = term
        self.media = media
        offset = 0
        hasMore = false
        lock.unlock()
        load(isFirstPage: true)
    }

    /// Loads the page after the last one, if there is one and none is loading; the view is told
    /// ``SearchView/nextPageFetched(_:hasMore:)``.
    public func fetchNextPage() {
        lock.lock()
        let ready = hasMore && loading == nil
        lock.unlock()
        if ready { load(isFirstPage: false) }
    }

    private func load(isFirstPage: Bool) {
        lock.lock()
        generation += 1
        let current = generation
        let request = ITunesSearchRequest(term: term, media: media, limit: pageSize, offset: offset)
        loading = client.send(request, queue: queue) { [weak self] result in
            self?.finish(result, generation: current, isFirstPage: isFirstPage)
        }
        lock.unlock()
    }

    private func finish(_ result: Result<ITunesPage, APIError>, generation: Int, isFirstPage: Bool) {
        lock.lock()
        guard generation == self.generation else {
            lock.unlock()
            return
        }
        loading = nil
        if case .success(let page) = result {
            offset += page.results.count + page.skippedCount
            hasMore = page.results.count + page.skippedCount == pageSize
        }
        let more = hasMore
        lock.unlock()
        switch result {
        case .success(let page) where isFirstPage: view?.searched(page.results, hasMore: more)
        case .success(let page): view?.nextPageFetched(page.results, hasMore: more)
        case .failure(let error) where error.kind == .cancelled: break
        case .failure(let error): view?.failed(error.serverMessage ?? error.description)
        }
    }
}
