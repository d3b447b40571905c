import CCourierCurl

/// libcurl, loaded once on first use (see `CCourierCurl.h`).
enum CurlLibrary {
    /// Why libcurl cannot be used here, or `nil` when it is loaded.
    static let loadFailure: String? = {
        var buffer = [CChar](repeating: 0, count: 512)
        guard ccurl_load(&buffer, buffer.count) != 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// libcurl's version text, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 nghttp2/1.52.0`.
    static let version: String? = loadFailure == nil ? String(cString: ccurl_version()) : nil
}
