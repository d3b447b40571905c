import Courier
import Foundation

let baseURL = URL(string: "https://api.example.com/v1")!

struct Song: Codable, Hashable, Sendable {
    let trackName: String
    let trackPrice: Double?
}

struct SearchPage: Codable, Hashable, Sendable {
    let resultCount: Int
    let results: [Song]
}

struct ITunesError: ServerErrorBody, Hashable {
    let errorMessage: String
    var serverMessage: String? { errorMessage }
}

struct SearchSongs: Endpoint {
    typealias Response = SearchPage
    typealias ErrorBody = ITunesError
    let term: String
    var path: Path { "search" }
    var query: Query { [.init(name: "term", value: term), .init(name: "media", value: "music")] }
}

let samplePage = SearchPage(
    resultCount: 2,
    results: [Song(trackName: "Banana Pancakes", trackPrice: 1.29), Song(trackName: "Upside Down", trackPrice: nil)]
)
