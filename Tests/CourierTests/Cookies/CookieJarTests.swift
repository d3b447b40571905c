import Courier
import Foundation
import Testing

/// RFC 6265's storage model, case by case.
@Suite("Cookie jar")
struct CookieJarTests {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)

    private final class Clock: Sendable {
        private let now: Locked<Date>
        init(_ date: Date) { now = Locked(date) }
        var date: Date { now.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { now.withLock { $0.addTimeInterval(seconds) } }
    }

    private func url(_ text: String) -> URL { URL(string: text)! }

    @Test("a cookie without Domain is host-only: not sent to subdomains or to the parent")
    func hostOnly() {
        let jar = CookieJar()
        #expect(jar.store(setCookie: "a=1", from: url("https://api.example.com/v1/login")))
        #expect(jar.cookieHeader(for: url("https://api.example.com/v1/x")) == "a=1")
        #expect(jar.cookieHeader(for: url("https://eu.api.example.com/v1/x")) == nil)
        #expect(jar.cookieHeader(for: url("https://example.com/v1/x")) == nil)
        #expect(jar.allCookies.first?.isHostOnly == true)
    }

    @Test("a Domain cookie goes to the domain and its subdomains; a leading dot is ignored")
    func domainCookie() {
        let jar = CookieJar()
        #expect(jar.store(setCookie: "a=1; Domain=.Example.com; Path=/", from: url("https://api.example.com/")))
        for target in ["https://example.com/", "https://api.example.com/x", "https://a.b.example.com/"] {
            #expect(jar.cookieHeader(for: url(target)) == "a=1", "\(target)")
        }
        #expect(jar.cookieHeader(for: url("https://notexample.com/")) == nil)
        #expect(jar.cookieHeader(for: url("https://example.com.evil.net/")) == nil)
    }

    @Test("refused: a Domain the host does not domain-match, another IP address, a single label or a suffix of an IP")
    func refusedDomains() {
        let jar = CookieJar()
        #expect(!jar.store(setCookie: "a=1; Domain=other.com", from: url("https://api.example.com/")))
        #expect(!jar.store(setCookie: "a=1; Domain=eu.api.example.com", from: url("https://api.example.com/")))
        #expect(!jar.store(setCookie: "a=1; Domain=com", from: url("https://api.example.com/")))
        #expect(!jar.store(setCookie: "a=1; Domain=127.0.0.2", from: url("http://127.0.0.1/")))
        #expect(!jar.store(setCookie: "a=1; Domain=0.0.1", from: url("http://127.0.0.1/")))
        #expect(!jar.store(setCookie: "a=1; Domain=localhost", from: url("http://app.localhost/")))
        #expect(jar.allCookies.isEmpty)
        // The host itself, even an IP address or a single label, makes a host-only cookie.
        #expect(jar.store(setCookie: "ip=1; Domain=127.0.0.1", from: url("http://127.0.0.1/")))
        #expect(jar.store(setCookie: "local=1; Domain=localhost", from: url("http://localhost/")))
        #expect(jar.allCookies.allSatisfy { $0.isHostOnly })
    }

    @Test("the default path is the request path's folder; a cookie goes under its path only")
    func paths() {
        let jar = CookieJar()
        jar.store(setCookie: "folder=1", from: url("https://h.example/docs/guide/intro"))
        jar.store(setCookie: "root=1", from: url("https://h.example/login"))
        jar.store(setCookie: "bad=1; Path=relative", from: url("https://h.example/a/b"))
        let byName = Dictionary(uniqueKeysWithValues: jar.allCookies.map { ($0.name, $0.path) })
        #expect(byName == ["folder": "/docs/guide", "root": "/", "bad": "/a"])
        #expect(jar.cookieHeader(for: url("https://h.example/docs/guide")) == "folder=1; root=1")
        #expect(jar.cookieHeader(for: url("https://h.example/docs/guide/more/deep")) == "folder=1; root=1")
        #expect(jar.cookieHeader(for: url("https://h.example/docs/guidebook")) == "root=1")
        #expect(jar.cookieHeader(for: url("https://h.example/docs")) == "root=1")
    }

    @Test("longer paths first, then the earlier created")
    func order() {
        let clock = Clock(start)
        let jar = CookieJar(now: { clock.date })
        jar.store(setCookie: "b=1; Path=/", from: url("https://h.example/"))
        clock.advance(1)
        jar.store(setCookie: "a=1; Path=/", from: url("https://h.example/"))
        jar.store(setCookie: "deep=1; Path=/x/y", from: url("https://h.example/"))
        #expect(jar.cookieHeader(for: url("https://h.example/x/y/z")) == "deep=1; b=1; a=1")
    }

    @Test("Secure cookies are stored from HTTPS only and sent over HTTPS only; plain HTTP cannot replace one")
    func secure() {
        let jar = CookieJar()
        #expect(!jar.store(setCookie: "s=1; Secure", from: url("http://h.example/")))
        #expect(jar.store(setCookie: "s=1; Secure; Path=/", from: url("https://h.example/")))
        #expect(jar.cookieHeader(for: url("http://h.example/")) == nil)
        #expect(jar.cookieHeader(for: url("https://h.example/")) == "s=1")
        #expect(!jar.store(setCookie: "s=evil; Path=/", from: url("http://h.example/")))
        #expect(jar.cookieHeader(for: url("https://h.example/")) == "s=1")
    }

    @Test("Expires and Max-Age: expiry, deletion, and Max-Age winning over Expires")
    func expiry() {
        let clock = Clock(start)
        let jar = CookieJar(now: { clock.date })
        let site = url("https://h.example/")
        jar.store(setCookie: "short=1; Max-Age=10", from: site)
        jar.store(setCookie: "dated=1; Expires=Wed, 15 Nov 2023 00:00:00 GMT", from: site)  // after start
        jar.store(setCookie: "both=1; Expires=Wed, 15 Nov 2023 00:00:00 GMT; Max-Age=5", from: site)
        jar.store(setCookie: "past=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: site)
        #expect(Set(jar.allCookies.map(\.name)) == ["short", "dated", "both"])
        clock.advance(6)
        #expect(Set(jar.allCookies.map(\.name)) == ["short", "dated"])
        clock.advance(5)
        #expect(Set(jar.allCookies.map(\.name)) == ["dated"])
        jar.store(setCookie: "dated=; Max-Age=0", from: site)
        #expect(jar.allCookies.isEmpty)
        jar.store(setCookie: "session=1", from: site)
        #expect(jar.allCookies.first?.expires == nil)
        jar.store(setCookie: "session=1; Max-Age=-1", from: site)
        #expect(jar.allCookies.isEmpty)
    }

    @Test("replacing a cookie keeps its creation time; HttpOnly and SameSite are kept")
    func attributes() throws {
        let clock = Clock(start)
        let jar = CookieJar(now: { clock.date })
        jar.store(setCookie: "id=1; HttpOnly; SameSite=Lax", from: url("https://h.example/"))
        clock.advance(100)
        jar.store(setCookie: "id=2; HttpOnly", from: url("https://h.example/"))
        let cookie = try #require(jar.allCookies.first)
        #expect(jar.allCookies.count == 1)
        #expect(cookie.value == "2")
        #expect(cookie.created == start)
        #expect(cookie.isHTTPOnly)
    }

    @Test("malformed values are refused: no '=', an empty name, control characters, over the size limit")
    func malformed() {
        let jar = CookieJar(limits: .init(maximumCookieSize: 20))
        let site = url("https://h.example/")
        for value in ["novalue", "=x", "a=b\u{1}c", "a\u{7F}=b", "name=" + String(repeating: "v", count: 30)] {
            #expect(!jar.store(setCookie: value, from: site), "\(value.debugDescription)")
        }
        let roomy = CookieJar()
        #expect(roomy.store(setCookie: " spaced = value with spaces ; Path=/", from: site))
        #expect(roomy.cookieHeader(for: site) == "spaced=value with spaces")
    }

    @Test("beyond the per-domain limit the least recently used cookie goes first")
    func eviction() {
        let clock = Clock(start)
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 3, maximumCookies: 5), now: { clock.date })
        let site = url("https://h.example/")
        for name in ["a", "b", "c"] {
            jar.store(setCookie: "\(name)=1", from: site)
            clock.advance(1)
        }
        _ = jar.cookies(for: site)  // every cookie used now; then "a" used again, later
        clock.advance(1)
        jar.store(setCookie: "a=2", from: site)
        clock.advance(1)
        jar.store(setCookie: "d=1", from: site)
        #expect(Set(jar.allCookies.map(\.name)) == ["a", "c", "d"])
        for index in 0..<4 {
            clock.advance(1)
            jar.store(setCookie: "x\(index)=1", from: url("https://other\(index).example/"))
        }
        #expect(jar.allCookies.count == 5)
    }

    @Test("persistent cookies survive in an owner-only file; session cookies do not")
    func persistence() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let jar = try CookieJar(persistingTo: file)
        jar.store(setCookie: "kept=1; Max-Age=3600; Path=/", from: url("https://h.example/"))
        jar.store(setCookie: "session=1; Path=/", from: url("https://h.example/"))
        try jar.save()  // on disk when it returns (the jar's own writes after each change run in the background)

        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let reopened = try CookieJar(persistingTo: file)
        #expect(reopened.allCookies.map(\.name) == ["kept"])
        #expect(reopened.cookieHeader(for: url("https://h.example/a")) == "kept=1")
    }

    @Test("a symbolic link in place of the jar's file is refused")
    func symlink() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("elsewhere")
        try Data("[]".utf8).write(to: target)
        let link = folder.appendingPathComponent("cookies.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect(throws: APIError.self) { try CookieJar(persistingTo: link) }
    }

    @Test("RFC 6265 dates: the three classic formats, two-digit years, and impossible dates refused")
    func dates() {
        // Within 400 days of "now" (the longest a cookie lives): 1994-01-31.
        let jar = CookieJar(now: { Date(timeIntervalSince1970: 760_000_000) })
        let site = url("https://h.example/")
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            jar.removeAll()
            jar.store(setCookie: "d=1; Expires=\(text)", from: site)
            #expect(jar.allCookies.first?.expires == expected, "\(text)")
        }
        for text in ["Sun, 31 Feb 2030 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "tomorrow"] {
            jar.removeAll()
            jar.store(setCookie: "d=1; Expires=\(text)", from: site)
            #expect(jar.allCookies.first?.expires == nil, "\(text)")
        }
    }
}
