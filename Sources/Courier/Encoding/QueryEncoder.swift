import Foundation

/// Encodes any `Encodable` value into ordered query items, for a URL query or a form body.
///
/// ```swift
/// struct SearchParameters: Encodable, Sendable {
///     let term: String
///     let media: String
///     let limit: Int
///     let offset: Int
/// }
/// var query: Query { .encoding(SearchParameters(term: "rock & roll", media: "music", limit: 25, offset: 50)) }
/// // term=rock%20%26%20roll&media=music&limit=25&offset=50
/// ```
///
/// Properties come out in their declared order, dictionary entries sorted by key, so the same
/// value always gives the same query. Values are percent-encoded later, by RFC 3986 rules, when the
/// URL or body is built. Every option has a default that suits most APIs:
///
/// | option | default | alternatives |
/// |---|---|---|
/// | ``arrays`` | `a=1&a=2` | `a[]=1`, `a[0]=1`, `a=1,2` |
/// | ``objects`` | `a[b]=1` | `a.b=1` |
/// | ``booleans`` | `true`/`false` | `1`/`0` |
/// | ``dates`` | ISO 8601 | seconds or milliseconds since 1970, a `DateFormatter`, a closure |
/// | ``keys`` | as declared | snake_case, a closure |
/// | ``nils`` | key omitted | key with an empty value |
public struct QueryEncoder: Sendable {
    /// How arrays are written.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `a=1&a=2`
        case repeatKey
        /// `a[]=1&a[]=2`
        case brackets
        /// `a[0]=1&a[1]=2`
        case indexed
        /// `a=1,2` (arrays of objects fall back to ``indexed``)
        case commaSeparated
    }

    /// How nested objects are written.
    public enum ObjectEncoding: Sendable, Hashable {
        /// `a[b]=1`
        case brackets
        /// `a.b=1`
        case dots
    }

    /// How booleans are written.
    public enum BoolEncoding: Sendable, Hashable {
        /// `true` / `false`
        case literal
        /// `1` / `0`
        case numeric
    }

    /// How dates are written.
    public enum DateEncoding: Sendable {
        /// `2026-12-01T06:39:40Z`
        case iso8601
        /// Whole or fractional seconds since 1970: `1764571180`.
        case secondsSince1970
        /// Milliseconds since 1970: `1764571180000`.
        case millisecondsSince1970
        /// With a formatter of your own.
        case formatted(DateFormatter)
        /// With a function of your own.
        case custom(@Sendable (Date) -> String)
    }

    /// How property names become keys.
    public enum KeyEncoding: Sendable {
        /// As declared.
        case useDefaultKeys
        /// `releaseDate` → `release_date`, `trackID` → `track_id`.
        case convertToSnakeCase
        /// With a function of your own.
        case custom(@Sendable (String) -> String)
    }

    /// What a `nil` value becomes.
    public enum NilEncoding: Sendable, Hashable {
        /// The key is left out.
        case omit
        /// The key with an empty value: `a=`.
        case emptyValue
    }

    /// How arrays are written; `a=1&a=2` by default.
    public var arrays: ArrayEncoding
    /// How nested objects are written; `a[b]=1` by default.
    public var objects: ObjectEncoding
    /// How booleans are written; `true`/`false` by default.
    public var booleans: BoolEncoding
    /// How dates are written; ISO 8601 by default.
    public var dates: DateEncoding
    /// How property names become keys; as declared by default.
    public var keys: KeyEncoding
    /// What `nil` becomes; the key is omitted by default.
    public var nils: NilEncoding

    /// Creates an encoder.
    public init(
        arrays: ArrayEncoding = .repeatKey,
        objects: ObjectEncoding = .brackets,
        booleans: BoolEncoding = .literal,
        dates: DateEncoding = .iso8601,
        keys: KeyEncoding = .useDefaultKeys,
        nils: NilEncoding = .omit
    ) {
        self.arrays = arrays
        self.objects = objects
        self.booleans = booleans
        self.dates = dates
        self.keys = keys
        self.nils = nils
    }

    /// The query items for `value`, which must encode as an object (a struct, class or dictionary).
    ///
    /// - Throws: `EncodingError.invalidValue` for a top-level value that is not an object, or a
    ///   number that is not finite.
    public func encode(_ value: some Encodable) throws -> [URLQueryItem] {
        let root = QueryNode()
        try QueryValueEncoder.encode(value, into: root, codingPath: [], options: self)
        guard case .object(let fields) = root.content else {
            if case .unset = root.content { return [] }
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "only an object can be encoded as query items")
            )
        }
        var items: [URLQueryItem] = []
        for (key, child) in fields {
            flatten(child, key: key, into: &items)
        }
        return items
    }

    private func flatten(_ node: QueryNode, key: String, into items: inout [URLQueryItem]) {
        switch node.content {
        case .unset:
            break
        case .value(let value):
            if let value {
                items.append(URLQueryItem(name: key, value: value))
            } else if nils == .emptyValue {
                items.append(URLQueryItem(name: key, value: ""))
            }
        case .object(let fields):
            for (name, child) in fields {
                flatten(child, key: objects == .dots ? "\(key).\(name)" : "\(key)[\(name)]", into: &items)
            }
        case .array(let elements):
            flattenArray(elements, key: key, into: &items)
        }
    }

    private func flattenArray(_ elements: [QueryNode], key: String, into items: inout [URLQueryItem]) {
        switch arrays {
        case .repeatKey:
            for element in elements { flatten(element, key: key, into: &items) }
        case .brackets:
            for element in elements { flatten(element, key: "\(key)[]", into: &items) }
        case .indexed:
            for (index, element) in elements.enumerated() { flatten(element, key: "\(key)[\(index)]", into: &items) }
        case .commaSeparated:
            guard !elements.isEmpty else { return }
            var values: [String] = []
            var allScalars = true
            for element in elements {
                guard case .value(let value) = element.content else {
                    allScalars = false
                    break
                }
                if let value = value ?? (nils == .emptyValue ? "" : nil) { values.append(value) }
            }
            if allScalars {
                items.append(URLQueryItem(name: key, value: values.joined(separator: ",")))
            } else {
                for (index, element) in elements.enumerated() {
                    flatten(element, key: "\(key)[\(index)]", into: &items)
                }
            }
        }
    }

    /// The key for a property name under ``keys``.
    func key(for name: String) -> String {
        switch keys {
        case .useDefaultKeys: name
        case .convertToSnakeCase: Self.snakeCase(name)
        case .custom(let transform): transform(name)
        }
    }

    /// `releaseDate` → `release_date`, `trackID` → `track_id`, `URLValue` → `url_value`.
    static func snakeCase(_ name: String) -> String {
        var words: [String] = []
        var current = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let previous = index > 0 ? characters[index - 1] : nil
            if character.isUppercase, !current.isEmpty,
                previous?.isLowercase == true || previous?.isNumber == true || next?.isLowercase == true
            {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }.joined(separator: "_")
    }

    /// A date as text under ``dates``.
    func string(from date: Date) -> String {
        switch dates {
        case .iso8601: date.formatted(.iso8601)
        case .secondsSince1970: QueryValueEncoder.number(date.timeIntervalSince1970)
        case .millisecondsSince1970: QueryValueEncoder.number((date.timeIntervalSince1970 * 1000).rounded())
        case .formatted(let formatter): formatter.string(from: date)
        case .custom(let format): format(date)
        }
    }
}
