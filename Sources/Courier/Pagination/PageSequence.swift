import Foundation

/// The pages of a paged API, fetched one at a time as the sequence is iterated.
///
/// ```swift
/// let pages = client.pages(pageSize: 25, itemCount: { $0.results.count }, endpoint: { offset, limit in
///     SearchSongs(term: "jack johnson", offset: offset, limit: limit)
/// })
/// for try await page in pages {
///     show(page.results)
/// }
/// ```
///
/// It stops at the end the pagination style detects (a short page, the last page number, no next
/// cursor, no `Link: rel="next"`), after ``limited(toPages:)`` pages, or at the first error.
/// Cancelling the iterating task stops it: the page being fetched fails with `CancellationError`
/// and no further page is requested.
public struct PageSequence<Page: Sendable>: AsyncSequence, Sendable {
    /// A page.
    public typealias Element = Page

    /// Fetches one page and says how to fetch the one after it, if any.
    struct Step: Sendable {
        let fetch: @Sendable () async throws -> (page: Page, next: Step?)
    }

    private let first: Step
    private let maximumPages: Int?

    /// Creates a sequence from a cursor of your own: `fetch` gets a cursor and returns the page
    /// and the cursor of the next page, or `nil` at the end.
    ///
    /// ```swift
    /// let pages = PageSequence(first: 1) { number in
    ///     let page = try await client.send(PopularMovies(page: number))
    ///     return (page, number < page.totalPages ? number + 1 : nil)
    /// }
    /// ```
    public init<Cursor: Sendable>(
        first cursor: Cursor,
        fetch: @escaping @Sendable (Cursor) async throws -> (page: Page, next: Cursor?)
    ) {
        self.init(first: Self.step(cursor, fetch), maximumPages: nil)
    }

    private init(first: Step, maximumPages: Int?) {
        self.first = first
        self.maximumPages = maximumPages
    }

    private static func step<Cursor: Sendable>(
        _ cursor: Cursor,
        _ fetch: @escaping @Sendable (Cursor) async throws -> (page: Page, next: Cursor?)
    ) -> Step {
        Step {
            let (page, next) = try await fetch(cursor)
            return (page, next.map { step($0, fetch) })
        }
    }

    /// The same sequence, ending after at most `count` pages.
    public func limited(toPages count: Int) -> PageSequence {
        PageSequence(first: first, maximumPages: Swift.min(Swift.max(0, count), maximumPages ?? .max))
    }

    /// The items of every page, in order, ending after `maximum` items if given.
    ///
    /// ```swift
    /// for try await song in pages.items({ $0.results }, maximum: 100) { … }
    /// ```
    public func items<Item: Sendable>(
        _ items: @escaping @Sendable (Page) -> [Item],
        maximum: Int? = nil
    ) -> PageItemSequence<Page, Item> {
        PageItemSequence(pages: self, items: items, maximum: maximum)
    }

    /// Makes an iterator that fetches the first page on its first call.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(step: first, remaining: maximumPages)
    }

    /// Fetches the pages one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var step: Step?
        private var remaining: Int?

        init(step: Step, remaining: Int?) {
            self.step = step
            self.remaining = remaining
        }

        /// The next page, or `nil` at the end.
        ///
        /// - Throws: The fetch's error (an ``APIError``), or `CancellationError`.
        public mutating func next() async throws -> Page? {
            guard let current = step, remaining.map({ $0 > 0 }) ?? true else { return nil }
            step = nil
            try Task.checkCancellation()
            let (page, following) = try await current.fetch()
            step = following
            remaining = remaining.map { $0 - 1 }
            return page
        }
    }
}

/// The items of a ``PageSequence``, page after page.
public struct PageItemSequence<Page: Sendable, Item: Sendable>: AsyncSequence, Sendable {
    /// An item.
    public typealias Element = Item

    let pages: PageSequence<Page>
    let items: @Sendable (Page) -> [Item]
    let maximum: Int?

    /// Makes an iterator that fetches pages as their items are needed.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: pages.makeAsyncIterator(), items: items, remaining: maximum)
    }

    /// Yields the items of each page, fetching the next page when one runs out.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var pages: PageSequence<Page>.AsyncIterator
        private let items: @Sendable (Page) -> [Item]
        private var buffer: [Item] = []
        private var index = 0
        private var remaining: Int?

        init(pages: PageSequence<Page>.AsyncIterator, items: @escaping @Sendable (Page) -> [Item], remaining: Int?) {
            self.pages = pages
            self.items = items
            self.remaining = remaining
        }

        /// The next item, or `nil` at the end.
        public mutating func next() async throws -> Item? {
            guard remaining.map({ $0 > 0 }) ?? true else { return nil }
            while index == buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = items(page)
                index = 0
            }
            defer { index += 1 }
            remaining = remaining.map { $0 - 1 }
            return buffer[index]
        }
    }
}
