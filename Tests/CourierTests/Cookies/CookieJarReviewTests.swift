import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The defects a second review of issue 24 proved, each as its probe's scenario.
@Suite("Cookie jar review")
struct CookieJarReviewTests {
    private func url(_ text: String) -> URL { URL(string: text)! }

    private func flood(_ count: Int, secure: Bool = false) -> HTTPResponse {
        var headers = HTTPHeaders()
        for index in 0..<count { headers.add(.setCookie, "junk\(index)=1; Path=/\(secure ? "; Secure" : "")") }
        return HTTPResponse(status: .ok, headers: headers)
    }

    // MARK: Eviction leaves secure cookies alone

    @Test("plain http cannot push a Secure session out of its site and then plant its own")
    func secureEvictionBypass() {
        let jar = CookieJar()
        #expect(jar.store(setCookie: "session=REAL; Secure; HttpOnly; Path=/", from: url("https://bank.example/")))
        _ = jar.cookieHeader(for: url("https://bank.example/"))
        jar.store(from: flood(50), for: url("http://bank.example/"))
        #expect(!jar.store(setCookie: "session=EVIL; Path=/", from: url("http://bank.example/")))
        let header = jar.cookieHeader(for: url("https://bank.example/")) ?? ""
        #expect(jar.allCookies.contains { $0.name == "session" && $0.value == "REAL" })
        #expect(!header.contains("session=EVIL"))
        #expect(jar.allCookies.count == 50)
    }

    @Test("a site full of Secure cookies refuses a cookie from plain http; https still evicts the oldest")
    func secureOnlySite() {
        let jar = CookieJar()
        jar.store(from: flood(50, secure: true), for: url("https://bank.example/"))
        #expect(!jar.store(setCookie: "plain=1; Path=/", from: url("http://bank.example/")))
        #expect(jar.allCookies.count == 50)
        #expect(jar.allCookies.allSatisfy { $0.isSecure })
        #expect(jar.store(setCookie: "fresh=1; Secure; Path=/", from: url("https://bank.example/")))
        #expect(jar.allCookies.count == 50)
        #expect(!jar.allCookies.contains { $0.name == "junk0" })
    }

    @Test("the global purge from plain http leaves Secure cookies alone")
    func globalPurgeSparesSecure() {
        let jar = CookieJar(limits: .init(maximumCookies: 10))
        for index in 0..<10 {
            jar.store(setCookie: "s=1; Secure; Path=/", from: url("https://site\(index).example/"))
        }
        #expect(!jar.store(setCookie: "plain=1; Path=/", from: url("http://attacker.example/")))
        #expect(jar.allCookies.count == 10)
        #expect(jar.allCookies.allSatisfy { $0.isSecure })
    }

    // MARK: Host-only cookies are their own

    @Test("a sibling subdomain's Domain cookie neither replaces nor deletes a host-only cookie")
    func hostOnlyReplaced() {
        let jar = CookieJar()
        jar.store(setCookie: "session=REAL; Path=/", from: url("https://bank.example/"))
        jar.store(setCookie: "session=EVIL; Domain=bank.example; Path=/", from: url("https://evil.bank.example/"))
        #expect(jar.allCookies.contains { $0.value == "REAL" && $0.isHostOnly })
        jar.removeAll()
        jar.store(setCookie: "session=REAL; Path=/", from: url("https://bank.example/"))
        jar.store(setCookie: "session=; Max-Age=0; Domain=bank.example; Path=/", from: url("http://evil.bank.example/"))
        #expect(jar.cookieHeader(for: url("https://bank.example/")) == "session=REAL")
    }

    // MARK: Prefixes bind deletions

    @Test("https cannot delete a __Secure- cookie with a field that lacks Secure")
    func secureprefixDeletion() {
        let jar = CookieJar()
        jar.store(setCookie: "__Secure-id=1; Secure; Path=/", from: url("https://h.example/"))
        #expect(!jar.store(setCookie: "__Secure-id=; Max-Age=0; Path=/", from: url("https://h.example/")))
        #expect(jar.allCookies.map(\.name) == ["__Secure-id"])
        #expect(jar.store(setCookie: "__Secure-id=; Max-Age=0; Secure; Path=/", from: url("https://h.example/")))
        #expect(jar.allCookies.isEmpty)
    }

    // MARK: The jar file

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jar-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a loaded cookie with a SameSite over 1,024 bytes or created in the future is dropped")
    func loadedAttributes() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let big = String(repeating: "x", count: 5000)
        let json = """
            [{"name":"a","value":"1","domain":"h.example","isHostOnly":true,"path":"/","expires":4102444800,\
            "isSecure":false,"isHTTPOnly":false,"created":1700000000,"sameSite":"\(big)"},
            {"name":"b","value":"1","domain":"h.example","isHostOnly":true,"path":"/","expires":4102444800,\
            "isSecure":false,"isHTTPOnly":false,"created":99999999999},
            {"name":"c","value":"1","domain":"h.example","isHostOnly":true,"path":"/","expires":4102444800,\
            "isSecure":false,"isHTTPOnly":false,"created":1700000000,"sameSite":"Lax"}]
            """
        try Data(json.utf8).write(to: file)
        chmod(file.path, 0o600)
        let jar = try CookieJar(persistingTo: file, now: { Date(timeIntervalSince1970: 1_800_000_000) })
        #expect(jar.allCookies.map(\.name) == ["c"])
    }

    @Test("a jar file with another hard link is refused")
    func hardLink() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = folder.appendingPathComponent("other.json")
        let file = folder.appendingPathComponent("cookies.json")
        try Data("[]".utf8).write(to: other)
        chmod(other.path, 0o600)
        #expect(link(other.path, file.path) == 0)
        #expect(throws: APIError.self) { try CookieJar(persistingTo: file) }
    }
}
