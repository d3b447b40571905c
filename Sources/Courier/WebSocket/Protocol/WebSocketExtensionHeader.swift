/// Reads `Sec-WebSocket-Extensions` (RFC 6455 §9.1): a comma-separated list of extensions, each a
/// token followed by `;`-separated parameters, each a token with an optional value, a token or a
/// quoted string (whose unescaped content must be a token). Several header fields make one list.
/// Anything else is malformed: the handshake fails.
package enum WebSocketExtensionHeader {
    /// One extension with its parameters, in order (a parameter may repeat: the negotiator decides).
    package struct Element: Hashable, Sendable {
        package var name: String
        package var parameters: [(name: String, value: String?)]

        package init(name: String, parameters: [(name: String, value: String?)] = []) {
            self.name = name
            self.parameters = parameters
        }

        package static func == (left: Element, right: Element) -> Bool {
            left.name == right.name && left.parameters.map(\.name) == right.parameters.map(\.name)
                && left.parameters.map(\.value) == right.parameters.map(\.value)
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            for parameter in parameters {
                hasher.combine(parameter.name)
                hasher.combine(parameter.value)
            }
        }
    }

    /// Parses the values of every `Sec-WebSocket-Extensions` field.
    ///
    /// - Returns: `nil` when a value is malformed.
    package static func parse(_ values: [String]) -> [Element]? {
        var elements: [Element] = []
        for value in values {
            var scanner = Scanner(Array(value.utf8))
            while true {
                scanner.skipSpaces()
                if scanner.isAtEnd { break }
                if scanner.take(UInt8(ascii: ",")) { continue }  // empty list elements are allowed (1#)
                guard let name = scanner.token() else { return nil }
                var element = Element(name: name)
                scanner.skipSpaces()
                while scanner.take(UInt8(ascii: ";")) {
                    scanner.skipSpaces()
                    guard let parameter = scanner.token() else { return nil }
                    scanner.skipSpaces()
                    var parameterValue: String?
                    if scanner.take(UInt8(ascii: "=")) {
                        scanner.skipSpaces()
                        guard let text = scanner.token() ?? scanner.quotedString(), isToken(text) else { return nil }
                        parameterValue = text
                        scanner.skipSpaces()
                    }
                    element.parameters.append((parameter, parameterValue))
                }
                elements.append(element)
                scanner.skipSpaces()
                if scanner.isAtEnd { break }
                guard scanner.take(UInt8(ascii: ",")) else { return nil }
            }
        }
        return elements
    }

    /// Whether `text` is an HTTP token (RFC 9110 §5.6.2).
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { index >= bytes.count }

        mutating func skipSpaces() {
            while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count && bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func token() -> String? {
            let start = index
            while index < bytes.count && WebSocketExtensionHeader.isTokenByte(bytes[index]) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// A quoted string's unescaped content; `nil` when there is none or it does not end.
        mutating func quotedString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var content: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: content, as: UTF8.self) }
                if byte == UInt8(ascii: "\\") {
                    guard index < bytes.count else { return nil }
                    content.append(bytes[index])
                    index += 1
                } else {
                    content.append(byte)
                }
            }
            return nil
        }
    }
}
