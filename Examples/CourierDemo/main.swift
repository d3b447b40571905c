// courier-demo: the smallest real use of Courier, until the `mediasearch` program arrives.
//
//   swift run courier-demo                         offline, from a bundled sample response
//   swift run courier-demo --live "jack johnson"   the real iTunes Search API
import Courier
import CourierTesting
import Dispatch
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: courier-demo [--live] [search term]")
    exit(0)
}
let isLive = arguments.contains("--live")
let term = arguments.first { !$0.hasPrefix("--") } ?? "jack johnson"

let transport: any HTTPTransport =
    isLive
    ? URLSessionTransport(configuration: .init(timeout: .seconds(15)))
    : StubTransport().on(.get, "/search", .json(Samples.jackJohnson))
let client = APIClient(baseURL: URL(string: "https://itunes.apple.com")!, transport: transport)

// Style 1: an endpoint type names its response.
let songs = SearchSongs(term: term, limit: 5)
// Style 2: a router enum describes the API; the caller names the response.
let albums = ITunesRoute.search(term: term, media: "music", entity: "album", page: 0)

do {
    let page = try await client.send(songs)
    print("Songs for \"\(term)\"\(isLive ? "" : " (offline sample)"):")
    Table.print(page.results)

    let albumPage = try await client.send(albums, as: SearchPage.self)
    print("\n\(albumPage.resultCount) results through the router enum.")

    // Style 3: the completion-handler bridge, for code that does not use async/await yet.
    let done = DispatchSemaphore(value: 0)
    client.send(SearchSongs(term: term, limit: 1), queue: .global()) { result in
        switch result {
        case .success(let page): print("Completion handler: first result \(page.results.first?.trackName ?? "none").")
        case .failure(let error): print("Completion handler failed: \(error)")
        }
        done.signal()
    }
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            done.wait()
            continuation.resume()
        }
    }
} catch {
    print("error: \(error)\(isLive ? "; try without --live" : "")")
    exit(1)
}
