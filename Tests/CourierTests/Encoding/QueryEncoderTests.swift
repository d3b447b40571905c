import Courier
import Foundation
import Testing

private struct Filters: Encodable, Sendable {
    struct Range: Encodable, Sendable {
        let from: Int
        let to: Int
    }
    let term: String
    let tags: [String]
    let price: Range
    let explicit: Bool
    let country: String?
}

private let filters = Filters(
    term: "rock & roll", tags: ["a", "b"], price: .init(from: 1, to: 5), explicit: false, country: nil
)

/// `name=value` pairs, unencoded, for readable expectations.
private func pairs(_ value: some Encodable, _ encoder: QueryEncoder = QueryEncoder()) throws -> [String] {
    try encoder.encode(value).map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }
}

@Suite("QueryEncoder")
struct QueryEncoderTests {
    @Test("defaults: declared order, repeated keys, brackets for objects, literal booleans, nil omitted")
    func defaults() throws {
        #expect(
            try pairs(filters) == [
                "term=rock & roll", "tags=a", "tags=b", "price[from]=1", "price[to]=5", "explicit=false",
            ]
        )
    }

    @Test(
        "array encodings",
        arguments: [
            (QueryEncoder.ArrayEncoding.repeatKey, ["tags=a", "tags=b"]), (.brackets, ["tags[]=a", "tags[]=b"]),
            (.indexed, ["tags[0]=a", "tags[1]=b"]), (.commaSeparated, ["tags=a,b"]),
        ])
    func arrays(encoding: QueryEncoder.ArrayEncoding, expected: [String]) throws {
        struct Tags: Encodable { let tags: [String] }
        #expect(try pairs(Tags(tags: ["a", "b"]), QueryEncoder(arrays: encoding)) == expected)
    }

    @Test("nested arrays of objects and objects of arrays combine")
    func nestedCombinations() throws {
        struct Item: Encodable {
            let id: Int
            let sizes: [Int]
        }
        struct Order: Encodable { let items: [Item] }
        let order = Order(items: [Item(id: 1, sizes: [10, 20]), Item(id: 2, sizes: [])])

        #expect(
            try pairs(order, QueryEncoder(arrays: .indexed))
                == ["items[0][id]=1", "items[0][sizes][0]=10", "items[0][sizes][1]=20", "items[1][id]=2"]
        )
        #expect(
            try pairs(order, QueryEncoder(arrays: .brackets, objects: .dots))
                == ["items[].id=1", "items[].sizes[]=10", "items[].sizes[]=20", "items[].id=2"]
        )
        #expect(
            try pairs(order, QueryEncoder(arrays: .commaSeparated))
                == ["items[0][id]=1", "items[0][sizes]=10,20", "items[1][id]=2"]
        )
    }

    @Test("objects with dots")
    func dots() throws {
        #expect(try pairs(filters, QueryEncoder(objects: .dots)).contains("price.from=1"))
    }

    @Test("numeric booleans")
    func booleans() throws {
        struct Flags: Encodable {
            let on: Bool
            let off: Bool
        }
        #expect(try pairs(Flags(on: true, off: false), QueryEncoder(booleans: .numeric)) == ["on=1", "off=0"])
    }

    @Test("date encodings")
    func dates() throws {
        struct When: Encodable { let at: Date }
        let when = When(at: Date(timeIntervalSince1970: 1_764_571_180.5))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"

        #expect(try pairs(when) == ["at=2025-12-01T06:39:40Z"])
        #expect(try pairs(when, QueryEncoder(dates: .secondsSince1970)) == ["at=1764571180.5"])
        #expect(try pairs(when, QueryEncoder(dates: .millisecondsSince1970)) == ["at=1764571180500"])
        #expect(try pairs(when, QueryEncoder(dates: .formatted(formatter))) == ["at=2025-12-01"])
        #expect(try pairs(when, QueryEncoder(dates: .custom { _ in "now" })) == ["at=now"])
    }

    @Test("snake_case and custom keys")
    func keys() throws {
        struct Names: Encodable {
            let releaseDate: Int
            let trackID: Int
            let urlValue: Int
            let a: Int
        }
        let names = Names(releaseDate: 1, trackID: 2, urlValue: 3, a: 4)
        #expect(
            try pairs(names, QueryEncoder(keys: .convertToSnakeCase))
                == ["release_date=1", "track_id=2", "url_value=3", "a=4"]
        )
        #expect(try pairs(names, QueryEncoder(keys: .custom { $0.uppercased() })).first == "RELEASEDATE=1")
    }

    @Test("nil: omitted, or an empty value")
    func nils() throws {
        struct Maybe: Encodable {
            let a: String?
            let b: Int?
            let c: [Int?]
        }
        let maybe = Maybe(a: nil, b: nil, c: [1, nil])
        #expect(try pairs(maybe) == ["c=1"])
        #expect(try pairs(maybe, QueryEncoder(nils: .emptyValue)) == ["a=", "b=", "c=1", "c="])
    }

    @Test("dictionaries come out sorted by key, every time")
    func deterministicDictionaries() throws {
        let value = ["zebra": 1, "apple": 2, "mango": 3, "kiwi": 4]
        for _ in 0..<20 {
            #expect(try pairs(value) == ["apple=2", "kiwi=4", "mango=3", "zebra=1"])
        }
    }

    @Test("numbers, URLs, enums and decimals have their plain text form")
    func scalars() throws {
        enum Media: String, Encodable { case music }
        struct Mixed: Encodable {
            let int: Int
            let negative: Int64
            let double: Double
            let url: URL
            let media: Media
            let decimal: Decimal
        }
        let mixed = Mixed(
            int: 25, negative: -3, double: 0.1, url: URL(string: "https://a.b/c?d=e")!, media: .music, decimal: 12.5
        )
        #expect(
            try pairs(mixed) == [
                "int=25", "negative=-3", "double=0.1", "url=https://a.b/c?d=e", "media=music", "decimal=12.5",
            ]
        )
    }

    @Test("values that cannot be a query are errors, not crashes")
    func invalid() {
        struct NotFinite: Encodable { let x: Double }
        #expect(throws: EncodingError.self) { try QueryEncoder().encode(NotFinite(x: .nan)) }
        #expect(throws: EncodingError.self) { try QueryEncoder().encode([1, 2, 3]) }
        #expect(throws: EncodingError.self) { try QueryEncoder().encode("just a string") }
    }

    @Test("an encoded query goes through the route and is percent-encoded by RFC 3986")
    func throughRoute() async throws {
        let query: Query = .encoding(filters) + ["page": "2"]
        #expect(
            try query.items().map(\.name) == ["term", "tags", "tags", "price[from]", "price[to]", "explicit", "page"])
    }
}
