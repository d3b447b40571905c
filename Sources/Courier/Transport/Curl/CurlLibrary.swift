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

    /// libcurl's version as (major, minor, patch), read from ``version``; `nil` when unknown.
    static let versionNumber: (major: Int, minor: Int, patch: Int)? = {
        guard let version, version.hasPrefix("libcurl/") else { return nil }
        let number = version.dropFirst("libcurl/".count).prefix { $0 != " " && $0 != "-" }
        let parts = number.split(separator: ".").compactMap { Int($0) }
        guard parts.count >= 2 else { return nil }
        return (parts[0], parts[1], parts.count > 2 ? parts[2] : 0)
    }()

    /// Whether this libcurl breaks a reused cleartext HTTP/2 prior-knowledge connection: before
    /// 8.0.0 the second request on it fails with "Error in the HTTP2 framing layer" (curl issue
    /// 10634, fixed by pull request 10643). Such requests then each get a connection of their own.
    static let breaksReusedPriorKnowledge: Bool = {
        guard let versionNumber else { return true }
        return versionNumber.major < 8
    }()
}
