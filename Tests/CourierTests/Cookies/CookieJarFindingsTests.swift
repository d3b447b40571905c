import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 24's six findings and the review's six defects, each pinned: a hostile site must not
/// plant, shadow or evict cookies for another, nor reach the jar's file.
@Suite("Cookie jar findings")
struct CookieJarFindingsTests {
    private func url(_ text: String) -> URL { URL(string: text)! }

    private func jar(_ source: PublicSuffixList.Source = .snapshot, limits: CookieJar.Limits = .init()) throws
        -> CookieJar
    {
        let suffixes = try #require(source == .libpsl ? PublicSuffixList.libpsl : .snapshot)
        return CookieJar(limits: limits, now: { Date(timeIntervalSince1970: 1_700_000_000) }, suffixes: suffixes)
    }

    // MARK: Finding 1: one field, one cookie

    @Test("finding 1: one Set-Cookie field is one cookie, through the middleware on a transport that keeps fields")
    func oneFieldOneCookie() async throws {
        let stub = StubTransport()
            .on(.get, "v1/a", .response(headers: ["Set-Cookie": "foo=\"bar, baz=qux\""]))
            .on(.get, "v1/b", .response(headers: ["Set-Cookie": "one=bar, two=qux"]))
        let jar = CookieJar()
        let client = APIClient(
            baseURL: URL(string: "https://api.example.com/v1/")!, transport: stub,
            middlewares: [CookieMiddleware(jar: jar)])
        _ = try await client.send(Request<Data>(path: "a"))
        _ = try await client.send(Request<Data>(path: "b"))
        #expect(jar.allCookies.map(\.name) == ["foo", "one"])
        #expect(jar.allCookies.map(\.value) == ["\"bar, baz=qux\"", "bar, two=qux"])
    }

    // MARK: Finding 2: public suffixes

    @Test(
        "finding 2: a public suffix is refused as Domain (co.uk, github.io), with libpsl and with the snapshot",
        arguments: [PublicSuffixList.Source.libpsl, .snapshot])
    func publicSuffixes(source: PublicSuffixList.Source) throws {
        let jar = try jar(source)
        #expect(!jar.store(setCookie: "s=EVIL; Domain=co.uk; Path=/", from: url("https://evil.co.uk/")))
        #expect(!jar.store(setCookie: "s=EVIL; Domain=github.io; Path=/", from: url("https://evil.github.io/")))
        #expect(jar.cookieHeader(for: url("https://bank.co.uk/")) == nil)
        #expect(jar.cookieHeader(for: url("https://victim.github.io/")) == nil)
        #expect(jar.store(setCookie: "own=1; Domain=github.io", from: url("https://github.io/")))
        #expect(jar.allCookies.first?.isHostOnly == true)
    }

    // MARK: Finding 3: leave secure cookies alone

    @Test("finding 3: plain http cannot shadow a Secure cookie with a longer path; https then sends only the real one")
    func secureShadowing() throws {
        let jar = try jar()
        #expect(jar.store(setCookie: "session=REAL; Secure; Path=/", from: url("https://bank.example/")))
        #expect(!jar.store(setCookie: "session=EVIL; Path=/account", from: url("http://bank.example/")))
        #expect(!jar.store(setCookie: "session=EVIL; Domain=bank.example", from: url("http://www.bank.example/")))
        #expect(jar.cookieHeader(for: url("https://bank.example/account")) == "session=REAL")
        // A cookie of another name, or any over https, is fine.
        #expect(jar.store(setCookie: "theme=dark; Path=/account", from: url("http://bank.example/")))
        #expect(jar.store(setCookie: "session=NEW; Path=/account", from: url("https://bank.example/")))
    }

    // MARK: Finding 4: trailing dots

    @Test("finding 4: evil.com. cannot set Domain=com. (or com) for the whole top-level domain")
    func trailingDot() throws {
        let jar = try jar()
        #expect(!jar.store(setCookie: "a=1; Domain=com.", from: url("https://evil.com./")))
        #expect(!jar.store(setCookie: "a=1; Domain=com", from: url("https://evil.com./")))
        #expect(!jar.store(setCookie: "a=1; Domain=evil.com.", from: url("https://evil.com./")))
        #expect(jar.cookieHeader(for: url("https://bank.com/")) == nil)
        #expect(jar.cookieHeader(for: url("https://bank.com./")) == nil)
        #expect(jar.store(setCookie: "own=1", from: url("https://evil.com./")))
        #expect(jar.allCookies.first?.domain == "evil.com")
    }

    // MARK: Finding 5: cookie tossing

    @Test("finding 5: a 60-label host tossing 3,000 cookies in two responses keeps 50 and evicts no other site's")
    func tossing() throws {
        let jar = try jar()
        #expect(jar.store(setCookie: "session=victim; Path=/", from: url("https://bank.example/")))
        let deep = (0..<60).map { "l\($0)" }.joined(separator: ".") + ".evil.example"
        // Every parent domain of the host (60 of them) 50 times: what filled a jar kept by domain.
        let parents = (0..<60).map { (0..<60).dropFirst($0).map { "l\($0)" }.joined(separator: ".") + ".evil.example" }
        let fields = (0..<1500).map { "t\($0)=x; Domain=\(parents[$0 % 60]); Path=/" }
        for round in 0..<2 {
            var headers = HTTPHeaders()
            for field in fields { headers.add(.setCookie, field.replacingOccurrences(of: "=x", with: "=\(round)")) }
            jar.store(from: HTTPResponse(status: .ok, headers: headers), for: url("https://\(deep)/"))
        }
        #expect(jar.allCookies.filter { $0.domain.hasSuffix("evil.example") }.count == 50)
        #expect(jar.cookieHeader(for: url("https://bank.example/")) == "session=victim")
    }

    @Test("finding 5: one response gives at most maximumCookiesPerResponse cookies")
    func perResponseCap() throws {
        let jar = try jar(limits: .init(maximumCookiesPerDomain: 500, maximumCookiesPerResponse: 10))
        var headers = HTTPHeaders()
        for index in 0..<100 { headers.add(.setCookie, "c\(index)=1") }
        jar.store(from: HTTPResponse(status: .ok, headers: headers), for: url("https://h.example/"))
        #expect(jar.allCookies.count == 10)
    }

    @Test("finding 5: 3,000 sites of tossed cookies evict the non-secure first; a Secure session stays")
    func globalPressure() throws {
        let jar = try jar()
        #expect(jar.store(setCookie: "session=victim; Secure; Path=/", from: url("https://bank.example/")))
        for index in 0..<3_100 {
            jar.store(setCookie: "t=1", from: url("https://evil\(index).example/"))
        }
        #expect(jar.allCookies.count <= 3_000)
        #expect(jar.cookieHeader(for: url("https://bank.example/")) == "session=victim")
    }

    @Test("finding 5: eviction stays within the offending site, expired first, then least recently used")
    func perSiteEviction() throws {
        let jar = try jar(limits: .init(maximumCookiesPerDomain: 3))
        jar.store(setCookie: "other=1", from: url("https://other.example/"))
        jar.store(setCookie: "a=1", from: url("https://x.evil.example/"))
        jar.store(setCookie: "b=1; Domain=evil.example", from: url("https://y.evil.example/"))
        jar.store(setCookie: "c=1", from: url("https://evil.example/"))
        jar.store(setCookie: "d=1", from: url("https://z.evil.example/"))
        #expect(Set(jar.allCookies.map(\.name)) == ["other", "b", "c", "d"])
    }

    // MARK: Finding 6 and defects 2, 3, 5: the file

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private func mode(_ file: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    private static let tampered = """
        [{"name":"session","value":"EVIL","domain":"bank.example","isHostOnly":true,"path":"/",
        "expires":4102444800,"isSecure":false,"isHTTPOnly":false,"created":1700000000}]
        """

    @Test("finding 6: a jar file others can write (0666) has its cookies dropped and is rewritten 0600")
    func worldWritable() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        for permissions in [0o666, 0o644, 0o620] {
            try Data(Self.tampered.utf8).write(to: file)
            chmod(file.path, mode_t(permissions))
            let jar = try CookieJar(persistingTo: file)
            #expect(jar.allCookies.isEmpty, "\(String(permissions, radix: 8))")
            #expect(try mode(file) == 0o600)
            #expect(try Data(contentsOf: file) == Data("[]".utf8))
        }
    }

    @Test("defect 5: a file open to others that is not a jar is refused and left untouched")
    func notAJarLeftAlone() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.txt")
        let text = Data("my notes, not cookies".utf8)
        try text.write(to: file)
        chmod(file.path, 0o666)
        #expect(throws: APIError.self) { try CookieJar(persistingTo: file) }
        #expect(try Data(contentsOf: file) == text)
        #expect(try mode(file) == 0o666)
    }

    @Test("finding 6: every loaded cookie is checked like a received one")
    func loadedCookiesValidated() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        func entry(
            _ name: String, domain: String, hostOnly: Bool = false, path: String = "/", expires: Int = 4_102_444_800,
            secure: Bool = false
        ) -> String {
            """
            {"name":"\(name)","value":"v","domain":"\(domain)","isHostOnly":\(hostOnly),"path":"\(path)",\
            "expires":\(expires),"isSecure":\(secure),"isHTTPOnly":false,"created":1700000000}
            """
        }
        let entries = [
            entry("kept", domain: "bank.example"), entry("suffix", domain: "co.uk"),
            entry("dotted", domain: "bank.example."), entry("upper", domain: "BANK.example"),
            entry("ip", domain: "0x7f.1", hostOnly: true), entry("relative", domain: "bank.example", path: "x"),
            entry("old", domain: "bank.example", expires: 1), entry("__Host-x", domain: "bank.example", secure: true),
            entry("semi;colon", domain: "bank.example"), entry("\u{FFFD}", domain: "bank.example"),
            entry("kelvin", domain: "\u{212A}.example"),
        ]
        try Data("[\(entries.joined(separator: ","))]".utf8).write(to: file)
        chmod(file.path, 0o600)
        let jar = try CookieJar(persistingTo: file)
        #expect(jar.allCookies.map(\.name) == ["kept"])
        // And no cookie lives more than 400 days.
        let expiry = try #require(jar.allCookies.first?.expires)
        #expect(expiry <= Date().addingTimeInterval(400 * 86_400 + 60))
    }

    @Test("finding 6: a link in place of the file is never followed, not even one swapped in after a save")
    func linkSwappedIn() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let jar = try CookieJar(persistingTo: file)
        jar.store(setCookie: "a=1; Max-Age=3600", from: url("https://h.example/"))
        try jar.save()
        let target = folder.appendingPathComponent("elsewhere")
        try Data(Self.tampered.utf8).write(to: target)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
        #expect(throws: APIError.self) { try CookieJar(persistingTo: file) }
        #expect(throws: (any Error).self) { try jar.save() }
        #expect(try Data(contentsOf: target) == Data(Self.tampered.utf8))
        // A FIFO is refused too, without blocking on it.
        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        #expect(throws: APIError.self) { try CookieJar(persistingTo: file) }
    }

    @Test(
        "defects 2 and 3: concurrent saves never write an older state after a newer one; a save() that returns is on disk"
    )
    func concurrentSaves() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        // A clock that takes its time: a snapshot taken before a save's turn would wait here, and
        // another thread's newer state would be written first, then overwritten by the older one.
        let jar = try CookieJar(
            persistingTo: file, limits: .init(),
            now: {
                usleep(UInt32.random(in: 0...2_000))
                return Date()
            }, suffixes: .snapshot)
        let site = url("https://h.example/")
        for round in 0..<150 {
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                jar.store(setCookie: "c\(index)=\(round); Max-Age=3600", from: site)
                try? jar.save()
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            let onDisk = try decoder.decode([Cookie].self, from: Data(contentsOf: file))
            let values = Dictionary(uniqueKeysWithValues: onDisk.map { ($0.name, $0.value) })
            let expected = Dictionary(uniqueKeysWithValues: (0..<4).map { ("c\($0)", "\(round)") })
            #expect(values == expected, "round \(round)")
            if values != expected { break }
        }
    }

    // MARK: Defects 1 and 6: hosts and Unicode

    @Test("defect 1: an IP address in another spelling is the same host, host-only, and no Domain reaches it")
    func ipSpellings() throws {
        let jar = try jar()
        #expect(jar.store(setCookie: "a=1; Domain=0x7f.1", from: url("http://127.0.0.1/")))
        #expect(jar.allCookies.first?.isHostOnly == true)
        #expect(jar.allCookies.first?.domain == "127.0.0.1")
        for spelling in ["http://2130706433/", "http://127.1/", "http://0x7f.1/", "http://[::ffff:127.0.0.1]/"] {
            #expect(jar.cookieHeader(for: url(spelling)) == "a=1", "\(spelling)")
        }
        #expect(!jar.store(setCookie: "b=1; Domain=0.0.1", from: url("http://0x7f.0.0.1/")))
        #expect(!jar.store(setCookie: "b=1; Domain=1", from: url("http://127.1/")))
        #expect(!jar.store(setCookie: "b=1; Domain=127.0.0.2", from: url("http://2130706433/")))
        #expect(jar.store(setCookie: "v6=1", from: url("http://[::1]/")))
        #expect(jar.cookieHeader(for: url("http://[0:0:0:0:0:0:0:1]/")) == "v6=1")
    }

    @Test("defect 6: non-ASCII Domain attributes are refused, not lowercased by Unicode (KELVIN SIGN)")
    func kelvin() throws {
        let jar = try jar()
        #expect(!jar.store(setCookie: "a=1; Domain=\u{212A}.example", from: url("https://www.k.example/")))
        #expect(jar.cookieHeader(for: url("https://k.example/")) == nil)
    }

    @Test("defect 6: a name or value with U+FFFD (bytes that were not UTF-8) is refused")
    func replacementCharacter() throws {
        let jar = try jar()
        #expect(!jar.store(setCookie: "a\u{FFFD}=1", from: url("https://k.example/")))
        #expect(!jar.store(setCookie: "a=\u{FFFD}", from: url("https://k.example/")))
        #expect(jar.allCookies.isEmpty)
    }

    @Test("defect 6: paths match by UTF-8 bytes, not by Unicode equivalence")
    func pathBytes() {
        #expect(!CookieRules.path("/cafe\u{301}/x", matches: "/caf\u{E9}"))
        #expect(CookieRules.path("/caf\u{E9}/x", matches: "/caf\u{E9}"))
    }

    // MARK: Hostile headers

    @Test("hostile headers stay bounded: a 1 MB value, 100,000 attributes, a 1 MB joined field of commas")
    func hostileHeaders() throws {
        let jar = try jar()
        let site = url("https://h.example/")
        #expect(!jar.store(setCookie: "big=" + String(repeating: "v", count: 1 << 20), from: site))
        let attributes = String(repeating: "; Domain=" + String(repeating: "d", count: 2_000), count: 1_000)
        #expect(jar.store(setCookie: "many=1" + attributes + String(repeating: ";x", count: 100_000), from: site))
        #expect(jar.allCookies.first?.isHostOnly == true, "a Domain over 1024 bytes is ignored")
        let commas = "a=1" + String(repeating: ", b", count: 300_000)
        #expect(SetCookieSplitter.split(commas).count == 1)
        let pairs = (0..<50_000).map { "c\($0)=1" }.joined(separator: ", ")
        #expect(SetCookieSplitter.split(pairs).count == 50_000)
        var headers = HTTPHeaders()
        headers.add(.setCookie, pairs)  // one field from a transport that keeps fields: one cookie, refused as too big
        jar.store(from: HTTPResponse(status: .ok, headers: headers), for: site)
        #expect(jar.allCookies.map(\.name) == ["many"])
    }

    // MARK: Issue 29 item 10: no caller closure under the lock

    @Test("remove(where:) runs its closure outside the jar's lock: the closure may use the jar")
    func removeWhereOutsideLock() throws {
        let jar = try jar()
        jar.store(setCookie: "a=1", from: url("https://h.example/"))
        jar.store(setCookie: "b=1", from: url("https://h.example/"))
        let done = DispatchSemaphore(value: 0)
        Thread {
            jar.remove { cookie in cookie.name == "a" && !jar.allCookies.isEmpty }
            done.signal()
        }.start()
        let finished = done.wait(timeout: .now() + 30) == .success
        #expect(finished, "remove(where:) held its lock while the closure ran")
        guard finished else { return }  // the jar's lock is held for good: touch the jar no more
        #expect(jar.allCookies.map(\.name) == ["b"])
    }
}
