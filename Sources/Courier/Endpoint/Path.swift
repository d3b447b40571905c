import Foundation

/// The path of a route, relative to the client's base URL, in which interpolated values are
/// always one encoded path segment.
///
/// Write it as a string; interpolate parameters and they are percent-encoded so that a value can
/// never add segments, climb out of the base path or start a query:
///
/// ```swift
/// var path: Path { "users/\(userID)/posts" }   // userID "../admin" → users/..%2Fadmin/posts
/// ```
///
/// The path is always appended to the base URL's path (`https://api.example.com/3` + `movie/1` is
/// `https://api.example.com/3/movie/1`), whether or not it starts with `/`, and never changes the
/// base URL's scheme, host or port. A path with a `.` or `..` segment, a `?` or `#`, or an empty
/// interpolated value fails the request with ``APIError/Kind/invalidRequest`` before any I/O.
public struct Path: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The path as it goes on the wire (percent-encoded), without a leading `/`.
    public private(set) var encoded: String
    /// Why the path cannot be sent, when it cannot.
    private(set) var problem: String?

    /// Builds a path from literal text and interpolated segments.
    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var encoded = ""
        fileprivate var problem: String?

        /// Reserves room for the literal parts.
        public init(literalCapacity: Int, interpolationCount: Int) {
            encoded.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        /// Appends literal text: `/` separates segments, existing `%XX` escapes are kept, and other
        /// characters not allowed in a path are encoded.
        public mutating func appendLiteral(_ literal: String) {
            if literal.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
                problem = problem ?? "the path \"\(literal)\" contains '?' or '#'; put query items in `query`"
            }
            encoded += Path.encodeLiteral(literal)
        }

        /// Appends a value as (part of) one segment: every character but the unreserved ones is
        /// encoded, `/` included.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            let text = value.description
            if text.isEmpty {
                problem = problem ?? "a path parameter is empty"
            }
            encoded += PercentEncoding.encode(text)
        }
    }

    /// Creates a path from interpolated text.
    public init(stringInterpolation: StringInterpolation) {
        encoded = stringInterpolation.encoded
        problem = stringInterpolation.problem
        normalise()
    }

    /// Creates a path from a literal, taken as written (see ``StringInterpolation/appendLiteral(_:)``).
    public init(stringLiteral value: String) {
        if Self.needsNoWork(value) {
            self.init(alreadyEncoded: value)
            return
        }
        var interpolation = StringInterpolation(literalCapacity: value.utf8.count, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.init(stringInterpolation: interpolation)
    }

    /// Creates a path from segments, each encoded as one segment: `Path(segments: ["a b", "c/d"])` is
    /// `a%20b/c%2Fd`.
    public init(segments: [String]) {
        var interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: segments.count)
        for (index, segment) in segments.enumerated() {
            if index > 0 { interpolation.appendLiteral("/") }
            interpolation.appendInterpolation(segment)
        }
        self.init(stringInterpolation: interpolation)
    }

    /// The encoded path.
    public var description: String { encoded }

    private init(alreadyEncoded: String) {
        encoded = alreadyEncoded
    }

    /// Whether a literal is already what encoding and normalising would make of it: unreserved
    /// characters and `/` only, not starting with `/`, no segment made of dots alone. Most route
    /// literals are (`"search"`, `"v1/movies/popular"`), and skip the byte-by-byte work.
    private static func needsNoWork(_ literal: String) -> Bool {
        var literal = literal
        return literal.withUTF8 { bytes in
            guard let first = bytes.first, first != UInt8(ascii: "/") else { return false }
            var segmentIsDots = true
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "/"):
                    if segmentIsDots { return false }
                    segmentIsDots = true
                case UInt8(ascii: "."):
                    continue
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    segmentIsDots = false
                default:
                    return false
                }
            }
            return !segmentIsDots
        }
    }

    /// Drops leading slashes and flags dot segments, whatever their spelling (`..`, `%2E%2E`).
    private mutating func normalise() {
        while encoded.hasPrefix("/") { encoded.removeFirst() }
        for segment in encoded.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if let dots = Self.dotSegment(segment) {
                problem = problem ?? "the path \"\(encoded)\" contains a '\(dots)' segment"
            }
        }
    }

    /// `"."` or `".."` when the segment is one of them, with each dot written as `.`, `%2E` or `%2e`.
    private static func dotSegment(_ segment: Substring.UTF8View.SubSequence) -> String? {
        var dots = 0
        var bytes = segment[...]
        while let first = bytes.first {
            if first == UInt8(ascii: ".") {
                bytes = bytes.dropFirst()
            } else if first == UInt8(ascii: "%"), bytes.dropFirst().starts(with: [UInt8(ascii: "2")]),
                let third = bytes.dropFirst(2).first, third | 0x20 == UInt8(ascii: "e")
            {
                bytes = bytes.dropFirst(3)
            } else {
                return nil
            }
            dots += 1
            if dots > 2 { return nil }
        }
        return dots == 0 ? nil : String(repeating: ".", count: dots)
    }

    private static let pathCharacters = Set("!$&'()*+,;=:@/".utf8)

    private static func encodeLiteral(_ literal: String) -> String {
        var output = ""
        var bytes = Array(literal.utf8)[...]
        while !bytes.isEmpty {
            if bytes.first == UInt8(ascii: "%"), bytes.count >= 3, bytes.dropFirst().prefix(2).allSatisfy(\.isHexDigit)
            {
                output += String(decoding: bytes.prefix(3), as: UTF8.self)
                bytes = bytes.dropFirst(3)
            } else {
                let run = bytes.prefix { $0 != UInt8(ascii: "%") }
                let chunk = run.isEmpty ? bytes.prefix(1) : run
                output += PercentEncoding.encode(bytes: chunk, alsoAllowed: pathCharacters)
                bytes = bytes.dropFirst(chunk.count)
            }
        }
        return output
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}
