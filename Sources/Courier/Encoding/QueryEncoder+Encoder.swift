import Foundation

/// One node of the tree a value encodes into before it is flattened into query items.
final class QueryNode {
    enum Content {
        case unset
        case value(String?)
        case array([QueryNode])
        case object([(String, QueryNode)])
    }

    var content: Content = .unset

    func child(forKey key: String) -> QueryNode {
        let node = QueryNode()
        var fields: [(String, QueryNode)] = []
        if case .object(let existing) = content { fields = existing }
        fields.removeAll { $0.0 == key }
        fields.append((key, node))
        content = .object(fields)
        return node
    }

    func appendChild() -> QueryNode {
        let node = QueryNode()
        var elements: [QueryNode] = []
        if case .array(let existing) = content { elements = existing }
        elements.append(node)
        content = .array(elements)
        return node
    }

    func becomeObject() {
        if case .unset = content { content = .object([]) }
    }

    func becomeArray() {
        if case .unset = content { content = .array([]) }
    }

    func sortFields() {
        if case .object(let fields) = content {
            content = .object(fields.sorted { $0.0 < $1.0 })
        }
    }
}

/// Marks dictionaries with string keys, whose entries are sorted so their order is deterministic.
private protocol StringKeyedDictionary {}
extension Dictionary: StringKeyedDictionary where Key == String {}

/// The `Encoder` behind ``QueryEncoder``: writes one value into one ``QueryNode``.
struct QueryValueEncoder: Encoder {
    let node: QueryNode
    let codingPath: [any CodingKey]
    let options: QueryEncoder
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes `value` into `node`, handling the types that have a query form of their own.
    static func encode(
        _ value: some Encodable,
        into node: QueryNode,
        codingPath: [any CodingKey],
        options: QueryEncoder
    ) throws {
        switch value {
        case let date as Date:
            node.content = .value(options.string(from: date))
        case let url as URL:
            node.content = .value(url.absoluteString)
        case let decimal as Decimal:
            node.content = .value(decimal.description)
        case let data as Data:
            node.content = .value(data.base64EncodedString())
        default:
            try value.encode(to: QueryValueEncoder(node: node, codingPath: codingPath, options: options))
            if value is StringKeyedDictionary { node.sortFields() }
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath, options: options))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath, options: options)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath, options: options)
    }
}

/// Scalars as query text; shared by the three containers.
private protocol QueryScalarWriting {
    var codingPath: [any CodingKey] { get }
    var options: QueryEncoder { get }
}

extension QueryScalarWriting {
    func text(_ value: Bool) -> String {
        options.booleans == .numeric ? (value ? "1" : "0") : (value ? "true" : "false")
    }

    func text(_ value: Double, _ original: any Encodable) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                original, .init(codingPath: codingPath, debugDescription: "\(value) cannot be written in a query")
            )
        }
        return String(describing: original)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, QueryScalarWriting {
    let node: QueryNode
    let codingPath: [any CodingKey]
    let options: QueryEncoder

    private func child(_ key: Key) -> QueryNode { node.child(forKey: options.key(for: key.stringValue)) }

    mutating func encodeNil(forKey key: Key) throws { child(key).content = .value(nil) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).content = .value(text(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { child(key).content = .value(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        child(key).content = .value(try text(value, value))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        child(key).content = .value(try text(Double(value), value))
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try QueryValueEncoder.encode(value, into: child(key), codingPath: codingPath + [key], options: options)
    }

    // Synthesized `Encodable` skips `nil` optionals through these; they decide what `nil` becomes.
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try present(value, key) }

    private mutating func present<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else if options.nils == .emptyValue {
            try encodeNil(forKey: key)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = child(key)
        child.becomeObject()
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key], options: options)
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = child(key)
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: codingPath + [key], options: options)
    }

    mutating func superEncoder() -> any Encoder {
        QueryValueEncoder(node: node.child(forKey: "super"), codingPath: codingPath, options: options)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        QueryValueEncoder(node: child(key), codingPath: codingPath + [key], options: options)
    }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer, QueryScalarWriting {
    let node: QueryNode
    let codingPath: [any CodingKey]
    let options: QueryEncoder

    var count: Int {
        if case .array(let elements) = node.content { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendChild().content = .value(nil) }
    mutating func encode(_ value: Bool) throws { node.appendChild().content = .value(text(value)) }
    mutating func encode(_ value: String) throws { node.appendChild().content = .value(value) }
    mutating func encode(_ value: Double) throws { node.appendChild().content = .value(try text(value, value)) }
    mutating func encode(_ value: Float) throws {
        node.appendChild().content = .value(try text(Double(value), value))
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = codingPath + [IndexKey(count)]
        try QueryValueEncoder.encode(value, into: node.appendChild(), codingPath: path, options: options)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let path = codingPath + [IndexKey(count)]
        let child = node.appendChild()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path, options: options))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [IndexKey(count)]
        let child = node.appendChild()
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: path, options: options)
    }

    mutating func superEncoder() -> any Encoder {
        QueryValueEncoder(node: node.appendChild(), codingPath: codingPath, options: options)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer, QueryScalarWriting {
    let node: QueryNode
    let codingPath: [any CodingKey]
    let options: QueryEncoder

    mutating func encodeNil() throws { node.content = .value(nil) }
    mutating func encode(_ value: Bool) throws { node.content = .value(text(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(value) }
    mutating func encode(_ value: Double) throws { node.content = .value(try text(value, value)) }
    mutating func encode(_ value: Float) throws { node.content = .value(try text(Double(value), value)) }
    mutating func encode(_ value: Int) throws { node.content = .value(String(value)) }
    mutating func encode(_ value: Int64) throws { node.content = .value(String(value)) }
    mutating func encode(_ value: UInt64) throws { node.content = .value(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try QueryValueEncoder.encode(value, into: node, codingPath: codingPath, options: options)
    }
}
