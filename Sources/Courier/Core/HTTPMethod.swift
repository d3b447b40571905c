/// The method of an HTTP request: an open set, so an API's own verbs can be spelled too.
///
/// ```swift
/// let purge = HTTPMethod(rawValue: "PURGE")
/// ```
///
/// A method that is not a valid RFC 9110 token (empty, or containing spaces, separators or control
/// characters) is rejected with ``APIError/Kind/invalidRequest`` before any I/O.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method as it is sent on the wire, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its wire spelling. Methods are case-sensitive: `"get"` is not `GET`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`: retrieve a representation.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: submit data to be processed.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: modify a resource in part.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: like `GET`, without a response body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: ask which methods a resource supports.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`: echo the request back (rarely enabled).
    public static let trace = HTTPMethod(rawValue: "TRACE")

    /// The wire spelling.
    public var description: String { rawValue }

    /// Whether the request only reads (RFC 9110 §9.2.1): `GET`, `HEAD`, `OPTIONS`, `TRACE`.
    public var isSafe: Bool {
        switch self {
        case .get, .head, .options, .trace: true
        default: false
        }
    }

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace: true
        default: false
        }
    }

    /// Whether the method is a valid RFC 9110 token.
    var isValidToken: Bool {
        !rawValue.isEmpty && rawValue.utf8.allSatisfy(HTTPToken.isTokenCharacter)
    }
}

/// The characters of an RFC 9110 token, shared by methods and header names.
enum HTTPToken {
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
