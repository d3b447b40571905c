/// An ordered list of HTTP header fields with case-insensitive names.
///
/// Order is kept and a name may repeat, as on the wire. Reading by name finds the first value;
/// ``values(for:)`` returns all of them.
///
/// ```swift
/// var headers: HTTPHeaders = [.accept: "application/json", "X-Request-ID": "42"]
/// headers[.authorization] = "Bearer \(token)"
/// headers.add("X-Api-Key", key, isSensitive: true)  // redacted in logs, stripped on cross-origin redirects
/// ```
///
/// Headers are validated when a request is sent, not when they are built: a name that is not a token,
/// a value with a control character (anything below U+0020 but tab, and DEL: RFC 9110 §5.5 allows
/// visible characters, spaces, tabs and bytes of 0x80 and up), or a `Transfer-Encoding` (framing is the
/// transport's to choose), fails the request with ``APIError/Kind/invalidRequest`` before any I/O (so
/// a header can never smuggle a second header or request). A `Content-Length` of the caller's is
/// replaced by the transport's own.
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, RandomAccessCollection,
    CustomStringConvertible
{
    /// One header field: a name, its value, and whether the value is a secret.
    public struct Field: Sendable, Hashable {
        /// The field's name.
        public var name: Name
        /// The field's value, without surrounding whitespace.
        public var value: String
        /// Whether the value is marked secret by the caller (on top of names secret by default).
        public var isMarkedSensitive: Bool

        /// Creates a field.
        public init(name: Name, value: String, isSensitive: Bool = false) {
            self.name = name
            self.value = value
            self.isMarkedSensitive = isSensitive
        }

        /// Whether the value is secret: marked so, or named like a credential (``Name/isSensitive``).
        /// Secret values are redacted wherever Courier prints them and stripped when a redirect
        /// leaves the request's origin.
        public var isSensitive: Bool { isMarkedSensitive || name.isSensitive }
    }

    private var fields: [Field]

    /// Creates an empty header list.
    public init() {
        fields = []
    }

    /// Creates a header list from fields, in order.
    public init(_ fields: some Sequence<Field>) {
        self.fields = Array(fields)
    }

    /// Creates a header list from a dictionary literal, in the literal's order.
    public init(dictionaryLiteral elements: (Name, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The position of the first field.
    public var startIndex: Int { fields.startIndex }
    /// The position after the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at a position.
    public subscript(position: Int) -> Field { fields[position] }

    /// The first value for a name, or `nil`. Setting replaces every field of that name (at the
    /// position of the first one); setting `nil` removes them all.
    public subscript(name: Name) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            if let newValue {
                set(name, newValue)
            } else {
                remove(name)
            }
        }
    }

    /// Every value for a name, in order.
    public func values(for name: Name) -> [String] {
        var values: [String] = []
        for field in fields where field.name == name { values.append(field.value) }
        return values
    }

    /// Whether a field with that name is present.
    public func contains(_ name: Name) -> Bool {
        fields.contains { $0.name == name }
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(_ name: Name, _ value: String, isSensitive: Bool = false) {
        fields.append(Field(name: name, value: value, isSensitive: isSensitive))
    }

    /// Replaces every field of that name with one field, at the position of the first one.
    public mutating func set(_ name: Name, _ value: String, isSensitive: Bool = false) {
        let field = Field(name: name, value: value, isSensitive: isSensitive)
        if let first = fields.firstIndex(where: { $0.name == name }) {
            fields[first] = field
            if fields[(first + 1)...].contains(where: { $0.name == name }) {
                fields = fields.enumerated().filter { $0.offset <= first || $0.element.name != name }.map(\.element)
            }
        } else {
            fields.append(field)
        }
    }

    /// Removes every field of that name.
    public mutating func remove(_ name: Name) {
        fields.removeAll { $0.name == name }
    }

    /// Removes every field whose value is secret (see ``Field/isSensitive``).
    public mutating func removeSensitive() {
        fields.removeAll(where: \.isSensitive)
    }

    /// Adds the fields of `defaults` whose names this list does not have yet.
    public func adding(defaults: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for field in defaults where !contains(field.name) {
            // Room for every default at the first one missing (none missing: no copy at all).
            if merged.fields.count == fields.count {
                merged.fields.reserveCapacity(fields.count + defaults.fields.count)
            }
            merged.fields.append(field)
        }
        return merged
    }

    /// The headers one per line, secret values redacted.
    public var description: String {
        fields.map { "\($0.name): \($0.isSensitive ? Redaction.placeholder : $0.value)" }.joined(separator: "\n")
    }

    /// The first field that could not be sent safely, with the reason.
    func firstInvalidField() -> (field: Field, reason: String)? {
        for field in fields {
            var name = field.name.rawName
            if !name.withUTF8({ !$0.isEmpty && $0.allSatisfy(HTTPToken.isTokenCharacter) }) {
                return (field, "its name is not a valid HTTP token")
            }
            var value = field.value
            // Control characters: below 0x20 but tab, and DEL.
            if value.withUTF8({ $0.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } }) {
                return (field, "its value contains a control character (CR, LF, NUL or another below U+0020, or DEL)")
            }
            if field.name == .transferEncoding {
                return (field, "the transport frames the body itself (it sets Content-Length or chunked encoding)")
            }
        }
        return nil
    }
}
