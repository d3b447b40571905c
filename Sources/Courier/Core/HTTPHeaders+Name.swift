extension HTTPHeaders {
    /// A header name. Names compare case-insensitively and keep the spelling they were given.
    public struct Name: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name as it is sent.
        public let rawName: String
        /// The lowercased name, used for comparison.
        public let canonicalName: String

        /// Creates a name from its spelling.
        public init(_ name: String) {
            rawName = name
            var utf8 = name
            canonicalName = utf8.withUTF8 { Self.lowercasedIfNeeded(UnsafeRawBufferPointer($0)[...]) } ?? name
        }

        /// A name read off the wire, lowercased as it is decoded.
        init(bytes: Slice<UnsafeRawBufferPointer>) {
            rawName = String(decoding: bytes, as: UTF8.self)
            canonicalName = Self.lowercasedIfNeeded(bytes) ?? rawName
        }

        /// The name lowercased, or `nil` when it is lowercase already; ASCII without Unicode case
        /// mapping, which only other scripts need.
        private static func lowercasedIfNeeded(_ bytes: Slice<UnsafeRawBufferPointer>) -> String? {
            let isUppercase: (UInt8) -> Bool = { $0 &- UInt8(ascii: "A") < 26 }
            if bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self).lowercased() }
            guard bytes.contains(where: isUppercase) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (offset, byte) in bytes.enumerated() { buffer[offset] = isUppercase(byte) ? byte | 0x20 : byte }
                return bytes.count
            }
        }

        /// Creates a name from a string literal.
        public init(stringLiteral value: String) {
            self.init(value)
        }

        /// The name as it is sent.
        public var description: String { rawName }

        /// Compares names case-insensitively.
        public static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.canonicalName == rhs.canonicalName
        }

        /// Hashes the lowercased name.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(canonicalName)
        }

        /// Whether values under this name are credentials whatever the caller says: `Authorization`,
        /// `Proxy-Authorization`, `Cookie`, `Set-Cookie`, and API-key or token headers
        /// (`X-Api-Key`, `Api-Key`, `X-Auth-Token`, …).
        public var isSensitive: Bool {
            Self.sensitiveNames.contains(canonicalName) || Redaction.isSecretName(canonicalName)
        }

        private static let sensitiveNames: Set<String> = [
            "authorization", "proxy-authorization", "cookie", "set-cookie",
        ]

        /// `Accept`
        public static let accept: Name = "Accept"
        /// `Accept-Encoding`
        public static let acceptEncoding: Name = "Accept-Encoding"
        /// `Accept-Language`
        public static let acceptLanguage: Name = "Accept-Language"
        /// `Authorization`
        public static let authorization: Name = "Authorization"
        /// `Cache-Control`
        public static let cacheControl: Name = "Cache-Control"
        /// `Content-Disposition`
        public static let contentDisposition: Name = "Content-Disposition"
        /// `Content-Encoding`
        public static let contentEncoding: Name = "Content-Encoding"
        /// `Content-Length`
        public static let contentLength: Name = "Content-Length"
        /// `Content-Type`
        public static let contentType: Name = "Content-Type"
        /// `Cookie`
        public static let cookie: Name = "Cookie"
        /// `ETag`
        public static let eTag: Name = "ETag"
        /// `Host`
        public static let host: Name = "Host"
        /// `Idempotency-Key`
        public static let idempotencyKey: Name = "Idempotency-Key"
        /// `If-Modified-Since`
        public static let ifModifiedSince: Name = "If-Modified-Since"
        /// `If-None-Match`
        public static let ifNoneMatch: Name = "If-None-Match"
        /// `Last-Modified`
        public static let lastModified: Name = "Last-Modified"
        /// `Link`
        public static let link: Name = "Link"
        /// `Location`
        public static let location: Name = "Location"
        /// `Proxy-Authorization`
        public static let proxyAuthorization: Name = "Proxy-Authorization"
        /// `Range`
        public static let range: Name = "Range"
        /// `Retry-After`
        public static let retryAfter: Name = "Retry-After"
        /// `Set-Cookie`
        public static let setCookie: Name = "Set-Cookie"
        /// `Transfer-Encoding`: the transport's to set on a request (a caller's is refused).
        public static let transferEncoding: Name = "Transfer-Encoding"
        /// `User-Agent`
        public static let userAgent: Name = "User-Agent"
        /// `WWW-Authenticate`
        public static let wwwAuthenticate: Name = "WWW-Authenticate"
    }
}
