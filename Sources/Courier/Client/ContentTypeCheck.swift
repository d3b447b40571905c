import Foundation

/// Checks a response's `Content-Type` against what a route accepts, before decoding, so that an
/// HTML error page where JSON was expected says so plainly.
enum ContentTypeCheck {
    static func verify(_ response: HTTPResponse, accepts acceptable: [String]?, request: HTTPRequest) throws {
        guard let acceptable, !acceptable.isEmpty else { return }
        let received = response.headers[.contentType]
        let mediaType = received.map(Self.mediaType(of:))
        if let mediaType, acceptable.contains(where: { Self.matches(mediaType, pattern: Self.mediaType(of: $0)) }) {
            return
        }
        let expected = acceptable.joined(separator: " or ")
        throw APIError(
            .unacceptableContentType(received),
            message: "expected \(expected) but the server sent \(mediaType ?? "no Content-Type")", request: request,
            response: response
        )
    }

    /// `type/subtype`, lowercased, without parameters.
    static func mediaType(of contentType: String) -> String {
        let type = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let trimmed = type.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return String(decoding: trimmed, as: UTF8.self).lowercased()
    }

    /// Whether a media type matches a pattern: exact, `*/*`, `image/*`, or `application/*+json`.
    static func matches(_ mediaType: String, pattern: String) -> Bool {
        if pattern == "*/*" || pattern == mediaType { return true }
        let typeParts = mediaType.split(separator: "/", maxSplits: 1)
        let patternParts = pattern.split(separator: "/", maxSplits: 1)
        guard typeParts.count == 2, patternParts.count == 2, typeParts[0] == patternParts[0] else { return false }
        if patternParts[1] == "*" { return true }
        if patternParts[1].hasPrefix("*+") {
            return typeParts[1].hasSuffix(patternParts[1].dropFirst())
        }
        return false
    }
}
