import Courier
import CourierTesting
import Foundation
import Testing

private struct Numbers: Codable, Sendable, Equatable {
    let items: [Int]
    var total: Int?
    var totalPages: Int?
    var next: String?
}

/// Serves the numbers 0..<count by `offset`/`limit`, by `page` (10 a page) or by cursor.
private func numberServer(count: Int) -> StubTransport {
    StubTransport().on(.get, "*") { request in
        let query = Dictionary(
            (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
                ($0.name, $0.value ?? "")
            }, uniquingKeysWith: { first, _ in first })
        let all = Array(0..<count)
        if let page = query["page"].flatMap(Int.init) {
            let items = Array(all.dropFirst((page - 1) * 10).prefix(10))
            return .json(Numbers(items: items, totalPages: (count + 9) / 10))
        }
        if let cursor = query["cursor"] ?? (request.url.path.hasSuffix("cursor") ? "0" : nil) {
            let start = Int(cursor) ?? 0
            let items = Array(all.dropFirst(start).prefix(10))
            return .json(Numbers(items: items, next: start + 10 < count ? String(start + 10) : nil))
        }
        let offset = Int(query["offset"] ?? "") ?? 0
        let limit = Int(query["limit"] ?? "") ?? 10
        return .json(Numbers(items: Array(all.dropFirst(offset).prefix(limit)), total: count))
    }
}

private func offsetPage(_ offset: Int, _ limit: Int) -> Request<Numbers> {
    .get("numbers", query: ["offset": String(offset), "limit": String(limit)], as: Numbers.self)
}

@Suite("Pagination", .timeLimit(.minutes(1)))
struct PaginationTests {
    @Test("offset/limit stops at the first short page", arguments: [23, 20, 0])
    func offsetLimit(count: Int) async throws {
        let transport = numberServer(count: count)
        let client = APIClient(baseURL: baseURL, transport: transport)

        var pages: [[Int]] = []
        for try await page in client.pages(pageSize: 10, itemCount: { $0.items.count }, endpoint: offsetPage).limited(
            toPages: 10)
        {
            pages.append(page.items)
        }

        #expect(pages.flatMap { $0 } == Array(0..<count))
        // An exact multiple needs one more (empty) page to see the end; a short page ends at once.
        #expect(transport.requests.count == count / 10 + 1)
    }

    @Test("a known total ends offset paging without the extra empty page")
    func offsetWithTotal() async throws {
        let transport = numberServer(count: 20)
        let client = APIClient(baseURL: baseURL, transport: transport)

        let pages = client.pages(pageSize: 10, itemCount: { $0.items.count }, total: { $0.total }, endpoint: offsetPage)
        var count = 0
        for try await _ in pages.limited(toPages: 10) { count += 1 }

        #expect(count == 2 && transport.requests.count == 2)
    }

    @Test("page numbers end at the reported total; items flatten the pages")
    func pageNumbers() async throws {
        let transport = numberServer(count: 35)
        let client = APIClient(baseURL: baseURL, transport: transport)
        let pages = client.pages(
            totalPages: { $0.totalPages },
            endpoint: { page in Request.get("numbers", query: ["page": String(page)], as: Numbers.self) }
        )

        var items: [Int] = []
        for try await item in pages.limited(toPages: 10).items({ $0.items }) { items.append(item) }

        #expect(items == Array(0..<35))
        #expect(transport.requests.count == 4)
    }

    @Test("caps: at most N pages, at most N items, and no request beyond what is needed")
    func caps() async throws {
        let transport = numberServer(count: 1_000)
        let client = APIClient(baseURL: baseURL, transport: transport)
        let pages = client.pages(pageSize: 10, itemCount: { $0.items.count }, endpoint: offsetPage)

        var pageCount = 0
        for try await _ in pages.limited(toPages: 3) { pageCount += 1 }
        var items: [Int] = []
        for try await item in pages.items({ $0.items }, maximum: 15) { items.append(item) }

        #expect(pageCount == 3)
        #expect(items == Array(0..<15))
        #expect(transport.requests.count == 3 + 2)
    }

    @Test("cursors are followed to the end; a cursor given twice stops with a typed error")
    func cursors() async throws {
        let client = APIClient(baseURL: baseURL, transport: numberServer(count: 25))
        let pages = client.pages(
            from: Request.get("cursor", as: Numbers.self), nextCursor: { $0.next },
            endpoint: { cursor in Request.get("numbers", query: ["cursor": cursor], as: Numbers.self) }
        )

        var items: [Int] = []
        for try await page in pages.limited(toPages: 10) { items += page.items }
        #expect(items == Array(0..<25))

        let looping = StubTransport().on(.get, "*", .json(Numbers(items: [1], next: "same")))
        let stuck = APIClient(baseURL: baseURL, transport: looping).pages(
            from: Request.get("cursor", as: Numbers.self), nextCursor: { $0.next },
            endpoint: { _ in Request.get("cursor", as: Numbers.self) }
        )
        let error = try #require(
            await #expect(throws: APIError.self) { for try await _ in stuck.limited(toPages: 10) {} })
        #expect(error.kind == .decoding)
        #expect(looping.requests.count == 2)
    }

    @Test("Link: rel=\"next\" headers are followed, relative ones resolved; another host is refused")
    func linkHeaders() async throws {
        let transport = StubTransport()
        transport.on(
            "page 2", where: { $0.url.query == "page=2" },
            .json(Numbers(items: [3]), headers: [.link: #"</v1/issues?page=3>; rel="next""#]))
        transport.on(
            "page 3", where: { $0.url.query == "page=3" },
            .json(Numbers(items: [4]), headers: [.link: #"<https://evil.example/steal>; rel="next""#]))
        transport.on(
            "page 1", where: { $0.url.query == nil },
            .json(
                Numbers(items: [1, 2]),
                headers: [
                    .link:
                        #"<https://api.example.com/v1/issues?page=2>; rel="next", <https://api.example.com/v1/issues?page=3>; rel="last""#
                ]))
        let client = APIClient(baseURL: baseURL, transport: transport)

        var items: [Int] = []
        let error = try #require(
            await #expect(throws: APIError.self) {
                for try await page in client.pages(
                    following: Request.get("issues", headers: [.authorization: "Bearer t"], as: Numbers.self)
                ).limited(toPages: 10) {
                    items += page.items
                }
            })

        // Page 3 was good: it is handed out before its link to another host is refused.
        #expect(items == [1, 2, 3, 4])
        #expect(error.kind == .invalidRequest)
        #expect(transport.requests.map(\.url.absoluteString).last == "https://api.example.com/v1/issues?page=3")
        #expect(!transport.requests.contains { $0.url.host == "evil.example" })
    }

    @Test("a cursor cycle start → a → b → a yields start, a and b, then stops with a typed error")
    func cursorCycle() async throws {
        let next = ["start": "a", "a": "b", "b": "a"]
        let transport = StubTransport().on(.get, "*") { request in
            let cursor = request.url.query?.replacingOccurrences(of: "cursor=", with: "") ?? "start"
            return .json(Numbers(items: [cursor.count], next: next[cursor]))
        }
        let pages = APIClient(baseURL: baseURL, transport: transport).pages(
            from: Request.get("cursor", as: Numbers.self), nextCursor: { $0.next },
            endpoint: { cursor in Request.get("cursor", query: ["cursor": cursor], as: Numbers.self) }
        )

        var seen: [String?] = []
        let error = await #expect(throws: APIError.self) {
            for try await page in pages.limited(toPages: 10) { seen.append(page.next) }
        }

        #expect(seen == ["a", "b", "a"])
        #expect(error?.kind == .decoding)
        #expect(transport.requests.count == 3)
    }

    @Test("limited to one page, a page whose next link is refused is yielded and the sequence ends cleanly")
    func refusedLinkAfterLastWantedPage() async throws {
        let transport = StubTransport().on(
            .get, "*", .json(Numbers(items: [1]), headers: [.link: #"<https://evil.example/x>; rel="next""#]))
        let client = APIClient(baseURL: baseURL, transport: transport)

        var pages: [Numbers] = []
        for try await page in client.pages(following: Request.get("issues", as: Numbers.self)).limited(toPages: 1) {
            pages.append(page)
        }

        #expect(pages == [Numbers(items: [1])])
    }

    @Test("a Link to another port of the same host is refused like another host")
    func linkToAnotherPort() async throws {
        let transport = StubTransport().on(
            .get, "*",
            .json(
                Numbers(items: [1]), headers: [.link: #"<https://api.example.com:8443/v1/issues?page=2>; rel="next""#]))
        let client = APIClient(baseURL: baseURL, transport: transport)

        var items: [Int] = []
        let error = await #expect(throws: APIError.self) {
            for try await page in client.pages(following: Request.get("issues", as: Numbers.self)).limited(toPages: 5) {
                items += page.items
            }
        }

        #expect(items == [1])
        #expect(error?.kind == .invalidRequest)
        #expect(transport.requests.count == 1)
    }

    @Test("Link header parsing: several links, several relations, quoted commas, relative references")
    func linkParsing() {
        let response = HTTPResponse(
            status: .ok,
            headers: [.link: #"<https://a.example/p?x=1,2>; rel="next last"; title="a, b", </first>; rel=first"#],
            url: URL(string: "https://a.example/list?page=1")
        )

        let links = response.links

        #expect(links["next"]?.absoluteString == "https://a.example/p?x=1,2")
        #expect(links["last"] == links["next"])
        #expect(links["first"]?.absoluteString == "https://a.example/first")
    }

    @Test("cancelling the iterating task stops the paging cleanly")
    func cancellation() async throws {
        let transport = StubTransport().on(
            .get, "*", .json(Numbers(items: Array(0..<10))).delayed(by: .milliseconds(100)))
        let client = APIClient(baseURL: baseURL, transport: transport)
        let pages = client.pages(pageSize: 10, itemCount: { $0.items.count }, endpoint: offsetPage)

        let task = Task {
            var count = 0
            for try await _ in pages { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(250))
        task.cancel()

        await #expect(throws: CancellationError.self) { try await task.value }
        let sent = transport.requests.count
        try await Task.sleep(for: .milliseconds(200))
        #expect(transport.requests.count == sent)
        #expect(sent <= 4)
    }
}
