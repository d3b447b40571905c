import Foundation

/// Newline-delimited JSON (NDJSON, JSON Lines): one value decoded per line as the lines arrive;
/// blank lines are skipped.
///
/// ```swift
/// let stream = try await client.stream(Export.orders)
/// for try await order in stream.jsonLines(as: Order.self) { total += order.amount }
/// ```
public struct JSONLineSequence<Base: AsyncSequence & Sendable, Value: Decodable>: AsyncSequence, Sendable
where Base.Element == Data {
    /// A decoded line.
    public typealias Element = Value

    let lines: LineSequence<Base>
    let decoder: JSONDecoder

    /// Decodes the lines one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: LineSequence<Base>.AsyncIterator
        let decoder: JSONDecoder
        var lineNumber = 0

        /// The next value; `nil` at the end of the stream.
        ///
        /// - Throws: The stream's error, or ``APIError/Kind/decoding`` naming the line that does
        ///   not decode.
        public mutating func next() async throws -> Value? {
            while let line = try await lines.next() {
                lineNumber += 1
                guard line.contains(where: { !$0.isWhitespace }) else { continue }
                do {
                    return try decoder.decode(Value.self, from: Data(line.utf8))
                } catch {
                    let diagnosis = DecodingDiagnosis.describe(
                        error, decoding: String(describing: Value.self), body: Data(line.utf8))
                    throw APIError(.decoding, message: "line \(lineNumber): \(diagnosis)", underlyingError: error)
                }
            }
            return nil
        }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator(), decoder: decoder)
    }
}

extension ResponseStream {
    /// The body as newline-delimited JSON, one `Value` per line, decoded with `decoder` (the
    /// client's by default); lines of at most `maximumLineLength` bytes (8 MiB by default).
    public func jsonLines<Value: Decodable>(
        as type: Value.Type, decoder: JSONDecoder? = nil, maximumLineLength: Int = 8 << 20
    ) -> JSONLineSequence<Self, Value> {
        JSONLineSequence(lines: lines(maximumLength: maximumLineLength), decoder: decoder ?? self.decoder)
    }
}
