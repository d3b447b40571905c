import Foundation

/// The query of a route: ordered name–value items (names may repeat), written literally or encoded
/// from an `Encodable` value.
///
/// ```swift
/// var query: Query { ["term": term, "media": "music"] }                       // a dictionary literal keeps its order
/// var query: Query { [URLQueryItem(name: "id", value: "1"), URLQueryItem(name: "id", value: "2")] }
/// var query: Query { .encoding(SearchParameters(term: term, limit: 25)) }     // see QueryEncoder
/// var query: Query { .encoding(filters) + ["page": "\(page)"] }
/// ```
///
/// Every name and value is percent-encoded by RFC 3986 when the URL is built: `+`, `&`, `=`, `#`,
/// `%`, `?`, `/`, spaces and emoji arrive at the server exactly as given.
public struct Query: Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    private enum Part: Sendable {
        case items([URLQueryItem])
        case encoded(any Encodable & Sendable, QueryEncoder)
    }

    private var parts: [Part]

    /// A query of these items, in order.
    public init(_ items: [URLQueryItem] = []) {
        parts = items.isEmpty ? [] : [.items(items)]
    }

    /// A query of these items, in order.
    public init(arrayLiteral items: URLQueryItem...) {
        self.init(items)
    }

    /// A query of these names and values, in the literal's order; a `nil` value gives a bare name.
    public init(dictionaryLiteral elements: (String, String?)...) {
        self.init(elements.map { URLQueryItem(name: $0.0, value: $0.1) })
    }

    /// A query encoded from `value` with `encoder` (its properties in declared order).
    public static func encoding(_ value: some Encodable & Sendable, with encoder: QueryEncoder = QueryEncoder())
        -> Query
    {
        var query = Query()
        query.parts = [.encoded(value, encoder)]
        return query
    }

    /// This query followed by another.
    public static func + (lhs: Query, rhs: Query) -> Query {
        var query = lhs
        query.parts += rhs.parts
        return query
    }

    /// Whether the query has no parts at all.
    public var isEmpty: Bool { parts.isEmpty }

    /// The items, encoding the `Encodable` parts.
    ///
    /// - Throws: the ``QueryEncoder``'s `EncodingError`.
    public func items() throws -> [URLQueryItem] {
        var items: [URLQueryItem] = []
        for part in parts {
            switch part {
            case .items(let literal): items += literal
            case .encoded(let value, let encoder): items += try encoder.encode(value)
            }
        }
        return items
    }
}
