import Foundation

/// A page of iTunes results: `{"resultCount": N, "results": […]}`.
///
/// A result that is not an object at all is skipped (and counted in ``skippedCount``) instead of
/// failing the page; a result with odd fields keeps the fields it can read.
public struct ITunesPage: Sendable, Hashable, Codable {
    /// The count the API reports for this page.
    public let resultCount: Int
    /// The results that could be read.
    public let results: [ITunesItem]
    /// How many results could not be read at all.
    public let skippedCount: Int

    /// Creates a page.
    public init(results: [ITunesItem], resultCount: Int? = nil, skippedCount: Int = 0) {
        self.results = results
        self.resultCount = resultCount ?? results.count
        self.skippedCount = skippedCount
    }

    private enum CodingKeys: String, CodingKey {
        case resultCount, results
    }

    /// Decodes the page, skipping results that are not objects.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .results)
        var results: [ITunesItem] = []
        var skipped = 0
        while !list.isAtEnd {
            if let item = try? list.decode(ITunesItem.self) {
                results.append(item)
            } else {
                // A value that is not even JSON cannot be stepped over: the page fails, as it must.
                _ = try list.decode(Skipped.self)
                skipped += 1
            }
        }
        self.results = results
        self.skippedCount = skipped
        self.resultCount = (try? container.decodeIfPresent(Int.self, forKey: .resultCount)) ?? results.count
    }

    /// Encodes the count and the readable results.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(resultCount, forKey: .resultCount)
        try container.encode(results, forKey: .results)
    }

    /// Consumes one JSON value of any shape, so the list moves past it.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() { return }
            if (try? value.decode(Bool.self)) != nil { return }
            if (try? value.decode(Double.self)) != nil { return }
            if (try? value.decode(String.self)) != nil { return }
            if (try? value.decode([Skipped].self)) != nil { return }
            _ = try value.decode([String: Skipped].self)
        }
    }
}
