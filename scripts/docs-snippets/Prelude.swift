// Declarations the documentation's snippets lean on, so that each article's Swift blocks compile
// as they are shown (scripts/docs type-checks them against the built modules).
import Courier
import CourierImages
import CourierTesting
import Foundation

let url = URL(string: "https://api.example.com")!
let client = APIClient(baseURL: url)
let folder = FileManager.default.temporaryDirectory
let destination = folder.appendingPathComponent("download.bin")
let posterURL = URL(string: "https://image.tmdb.org/t/p/w500/poster.jpg")!
let key = "k3y"

struct Track: Decodable, Sendable { let trackName: String? }
struct SearchPage: Decodable, Sendable {
    let resultCount: Int
    let results: [Track]
}
struct Profile: Codable, Sendable { let name: String }
struct Issue: Decodable, Sendable {
    let id: Int
    let title: String
}
struct NewComment: Encodable, Sendable { let text: String }
struct Comment: Decodable, Sendable { let id: Int }
struct Order: Decodable, Sendable { let amount: Double }

/// Where an app keeps its OAuth tokens.
actor TokenStore {
    func current() async throws -> (access: String, expiry: Date) { ("a", Date().addingTimeInterval(3600)) }
    func refresh() async throws -> (access: String, expiry: Date) { ("b", Date().addingTimeInterval(3600)) }
}
let tokens = TokenStore()

let caches = FileManager.default.temporaryDirectory
let nextPagePosterURLs: [URL] = []

/// A progress bar an app draws.
struct ProgressBarView: Sendable {
    func update(_ progress: DownloadProgress) {}
}
let bar = ProgressBarView()
