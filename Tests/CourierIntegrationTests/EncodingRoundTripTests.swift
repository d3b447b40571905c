import Courier
import Foundation
import Testing

/// What httpbin's `/anything` and `/post` echo back.
private struct Echo: Decodable, Sendable {
    let args: [String: String]
    let form: [String: String]
    let files: [String: String]
    let headers: [String: String]
}

/// A small seeded generator (SplitMix64), so a failing string can be reproduced from the seed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Characters that break naive encoders, plus ordinary ones.
private let pool: [Character] =
    Array("+&=#%?/ ;:@$,[]{}|\\^`\"'<>!*()~._-") + ["\n", "\r\n", "\t"]
    + Array("abcXYZ019") + ["é", "ß", "漢", "🎸", "𝄞", "😀", "👩‍👩‍👧", "\u{301}"]

private func randomStrings(count: Int, seed: UInt64) -> [String] {
    var generator = SeededGenerator(state: seed)
    return (0..<count).map { _ in
        let length = Int.random(in: 0...12, using: &generator)
        return String((0..<length).map { _ in pool.randomElement(using: &generator)! })
    }
}

@Suite(
    "Encoding round trips through httpbin",
    .enabled(if: LocalServers.httpbin != nil, "start the tests with scripts/test"),
    .timeLimit(.minutes(2))
)
struct EncodingRoundTripTests {
    static let seed: UInt64 = 20_261_201

    @Test("1,000 random strings sent as query values come back equal", arguments: TransportKind.allCases)
    func queryValues(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        let strings = randomStrings(count: 1000, seed: Self.seed)
        for batch in stride(from: 0, to: strings.count, by: 20) {
            let values = Array(strings[batch..<min(batch + 20, strings.count)])
            let query = Query(values.enumerated().map { URLQueryItem(name: "v\($0.offset)", value: $0.element) })

            let echo = try await client.send(.get("anything", query: query, as: Echo.self))

            for (index, value) in values.enumerated() {
                #expect(
                    echo.args["v\(index)"] == value,
                    "seed \(Self.seed), string \(batch + index): \(value.debugDescription)")
            }
        }
    }

    @Test("1,000 random strings sent as form fields and names come back equal", arguments: TransportKind.allCases)
    func formFields(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        let strings = randomStrings(count: 1000, seed: Self.seed + 1)
        for batch in stride(from: 0, to: strings.count, by: 100) {
            let values = Array(strings[batch..<min(batch + 100, strings.count)])
            let fields = Query(
                values.enumerated().map { URLQueryItem(name: "f\($0.offset)\($0.element)", value: $0.element) })

            let echo = try await client.send(
                Request(method: .post, path: "anything", body: .form(fields), as: Echo.self))

            for (index, value) in values.enumerated() {
                #expect(
                    echo.form["f\(index)\(value)"] == value,
                    "seed \(Self.seed + 1), string \(batch + index): \(value.debugDescription)")
            }
        }
    }

    @Test("an Encodable query round-trips with its options", arguments: TransportKind.allCases)
    func encodableQuery(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        struct Search: Encodable, Sendable {
            let term: String
            let mediaType: String
            let ids: [Int]
            let explicit: Bool
        }
        let search = Search(term: "rock & roll", mediaType: "music", ids: [1, 2], explicit: true)
        let encoder = QueryEncoder(arrays: .commaSeparated, booleans: .numeric, keys: .convertToSnakeCase)

        let echo = try await client.send(.get("anything", query: .encoding(search, with: encoder), as: Echo.self))

        #expect(echo.args == ["term": "rock & roll", "media_type": "music", "ids": "1,2", "explicit": "1"])
    }

    @Test("multipart fields and files are parsed back exactly", arguments: TransportKind.allCases)
    func multipart(transport kind: TransportKind) async throws {
        let client = kind.client(LocalServers.httpbin)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-notes-\(UUID().uuidString).txt")
        try Data("notes from disk\nline two".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm()
        form.append("A day at the beach & more", name: "caption")
        form.append("ünïcödé 🎸", name: "tag")
        form.append(Data("in memory".utf8), name: "memo", filename: "memo.txt")
        form.append(fileAt: file, name: "notes")
        form.append(Data([0x00, 0xFF, 0x10]), name: "blob", filename: "blob.bin")

        for threshold in [10 << 20, 16] {  // built in memory, then streamed from a temporary file
            let echo = try await client.send(
                Request(method: .post, path: "post", body: .multipart(form, streamingAbove: threshold), as: Echo.self)
            )

            #expect(echo.form == ["caption": "A day at the beach & more", "tag": "ünïcödé 🎸"])
            #expect(echo.files["memo"] == "in memory")
            #expect(echo.files["notes"] == "notes from disk\nline two")
            #expect(
                echo.files["blob"] == "data:application/octet-stream;base64,"
                    + Data([0x00, 0xFF, 0x10]).base64EncodedString())
            #expect(echo.headers["Content-Type"] == form.contentType)
        }
    }
}
