import Foundation
import ITunesSearch
import TMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the two APIs and the poster images are: the live services unless the environment points
/// elsewhere (a mirror, a proxy, a local fake server):
/// `MEDIASEARCH_ITUNES_URL`, `MEDIASEARCH_TMDB_URL`, `MEDIASEARCH_IMAGE_URL`.
struct ServiceURLs: Equatable {
    var itunes = ITunesClient.baseURL
    var tmdb = TMDBClient.baseURL
    var images = TMDBClient.imageBaseURL

    static let variables = (
        itunes: "MEDIASEARCH_ITUNES_URL", tmdb: "MEDIASEARCH_TMDB_URL", images: "MEDIASEARCH_IMAGE_URL"
    )

    /// The live services.
    init() {}

    /// The URLs the environment sets, each an absolute http(s) URL.
    ///
    /// - Throws: ``UsageError`` naming the variable that is not one.
    init(environment: [String: String]) throws {
        itunes = try Self.url(environment, Self.variables.itunes) ?? itunes
        tmdb = try Self.url(environment, Self.variables.tmdb) ?? tmdb
        images = try Self.url(environment, Self.variables.images) ?? images
    }

    /// Refuses a plain-HTTP TMDB URL unless it names this machine (127.0.0.0/8, ::1, localhost):
    /// TMDB's key travels with every call, and over plain HTTP anyone on the way could read it.
    /// `allowsInsecureHTTP` (`--allow-insecure-http`) sends it anyway.
    ///
    /// - Throws: ``UsageError`` saying why and what to do instead.
    func checkCredentialTransport(allowsInsecureHTTP: Bool) throws(UsageError) {
        guard !allowsInsecureHTTP, tmdb.scheme?.lowercased() == "http" else { return }
        // As written: a decoded %00 would end the address for inet_pton ("127.0.0.1%00.evil").
        let host = tmdb.host(percentEncoded: true) ?? ""
        guard !Self.isLoopback(host) else { return }
        throw UsageError(
            message: "\(Self.variables.tmdb) is plain http to \(host), which would send the TMDB key unencrypted; "
                + "use https, a loopback address (127.0.0.1, ::1, localhost), or pass --allow-insecure-http",
            topic: nil)
    }

    /// Whether `host` is this machine: `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`. Only
    /// exact address forms count (`127.1`, `127.0.0.1.example.com` or a host with `%` or NUL do not).
    static func isLoopback(_ host: String) -> Bool {
        guard !host.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "%") }) else { return false }
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "localhost." { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }

    private static func url(_ environment: [String: String], _ name: String) throws -> URL? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host?.isEmpty == false
        else {
            throw UsageError(message: "\(name) must be an absolute http or https URL, not \"\(text)\"", topic: nil)
        }
        return url
    }
}
