import Courier
import Foundation

/// 64 MiB produced one 1 MiB chunk at a time (never all in memory), each chunk's bytes a function
/// of its index, so that the file the server wrote can be checked against the same function.
struct PatternChunks: AsyncSequence, Sendable {
    typealias Element = Data
    static let chunkSize = 1 << 20
    let count: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var index = 0
        let count: Int

        mutating func next() async -> Data? {
            guard index < count else { return nil }
            defer { index += 1 }
            return PatternChunks.chunk(index)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }

    /// Chunk `index`: a 64-bit linear congruential sequence seeded by the index.
    static func chunk(_ index: Int) -> Data {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        var data = Data(count: chunkSize)
        data.withUnsafeMutableBytes { buffer in
            let words = buffer.bindMemory(to: UInt64.self)
            for position in words.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                words[position] = state
            }
        }
        return data
    }
}

extension OriginScenarios {
    /// PUT 64 MiB of unknown length (chunked) to the server's upload folder, then compare the
    /// file it wrote, chunk by chunk, with what was sent.
    func streamedUpload() async throws -> String {
        let name = "uploads/\(UUID().uuidString).bin"
        let chunks = 64
        let body = HTTPBody.stream(HTTPBodyStream(PatternChunks(count: chunks), length: nil))
        let response = try await send(HTTPRequest(method: .put, url: url(name, marker: "upload"), body: body))
        try require((200..<300).contains(response.status.code), describe(response))
        let path = URL(fileURLWithPath: plan.www).appendingPathComponent(name).path
        guard let file = FileHandle(forReadingAtPath: path) else { throw ScenarioFailure("the server wrote no file") }
        defer { try? file.close() }
        for index in 0..<chunks {
            let read = try file.read(upToCount: PatternChunks.chunkSize) ?? Data()
            try require(read == PatternChunks.chunk(index), "the file differs from what was sent in MiB \(index)")
        }
        try require((try file.read(upToCount: 1) ?? Data()).isEmpty, "the file is longer than what was sent")
        try? FileManager.default.removeItem(atPath: path)
        // mod_http2 may log the stream only at the connection's next activity.
        _ = try? await send(HTTPRequest(url: url("small.txt")))
        // The log line ends "<Transfer-Encoding> <Content-Length>" of the request ("-" for none).
        let lines = await log.waitForLines(containing: name, count: 1)
        guard let line = lines.first else { throw ScenarioFailure("no access-log line for the upload") }
        let fields = line.text.split(separator: " ").suffix(2).map(String.init)
        let framing =
            fields.first == "chunked"
            ? "chunked" : fields.last.map { $0 == "-" ? "no Content-Length" : "Content-Length \($0)" } ?? "?"
        if kind == .curl {
            try require(line.isHTTP2 ? fields.last == "-" : fields.first == "chunked", "sent with \(framing)")
        }
        let spooled = kind == .urlSession ? " (spooled to a file first, as documented)" : ""
        return "\(response.status.code), 64 MiB written equal; \(line.protocolName), \(framing)\(spooled)"
    }
}
