import Foundation
import Testing

@testable import Courier

/// A conformance corpus: `Set-Cookie` fields received from a URL (one field, one cookie) and the
/// `Cookie` header the jar then sends to another URL. RFC 6265 with the rules of RFC 6265bis and
/// browsers the jar follows (public suffixes, leave secure cookies alone, name prefixes). Each case
/// runs with both sources of the Public Suffix List: libpsl and the bundled snapshot.
@Suite("Cookie conformance corpus")
struct CookieConformanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Fields and the URL each came from.
        let fields: [(String, String)]
        let request: String
        let expected: String?

        init(
            _ name: String, _ fields: [String], from: String = "http://h.example/", to request: String? = nil,
            _ expected: String?
        ) {
            self.name = name
            self.fields = fields.map { ($0, from) }
            self.request = request ?? from
            self.expected = expected
        }

        init(_ name: String, steps: [(String, String)], to request: String, _ expected: String?) {
            self.name = name
            fields = steps
            self.request = request
            self.expected = expected
        }

        var testDescription: String { name }
    }

    /// Tue, 14 Nov 2023 22:13:20 GMT.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static let cases: [Case] = [
        // Values, quotes, commas, whitespace.
        Case("plain", ["a=1"], "a=1"),
        Case("quoted value keeps its quotes", ["a=\"b\""], "a=\"b\""),
        Case("a quoted comma and name= stay one cookie", ["foo=\"bar, baz=qux\""], "foo=\"bar, baz=qux\""),
        Case("an unquoted comma and name= stay one cookie", ["foo=bar, baz=qux"], "foo=bar, baz=qux"),
        Case("a comma in a value", ["a=1, b; Path=/"], "a=1, b"),
        Case("blanks around name and value are trimmed", ["  a  =  1  "], "a=1"),
        Case("tabs are trimmed", ["a=\t1\t; Path=/"], "a=1"),
        Case("blanks inside a value stay", ["a=1 2"], "a=1 2"),
        Case("an empty value", ["a="], "a="),
        Case("an empty name is refused", ["=a"], nil),
        Case("no = is refused", ["a"], nil),
        Case("= alone is refused", ["="], nil),
        Case("a value with =", ["a=b=c"], "a=b=c"),
        Case("empty attributes are skipped", ["a=1;;; ;Path=/"], "a=1"),
        Case("an unknown attribute is ignored", ["a=1; Priority=High; Partitioned"], "a=1"),
        Case("a control character is refused", ["a=b\u{1}c"], nil),
        Case("DEL is refused", ["a\u{7F}=b"], nil),
        Case("U+FFFD (a byte that was not UTF-8) is refused", ["a=b\u{FFFD}"], nil),
        Case("U+FFFD in the name is refused", ["\u{FFFD}=b"], nil),
        // Attribute names in any case; duplicates: the last wins.
        Case("attribute names in any case", ["a=1; pAtH=/x; DOMAIN=h.example"], to: "http://w.h.example/x", "a=1"),
        Case("PATH in capitals limits the path", ["a=1; PATH=/x"], to: "http://h.example/", nil),
        Case("duplicate Path: the last wins", ["a=1; Path=/x; Path=/"], to: "http://h.example/y", "a=1"),
        Case("duplicate Max-Age: the last wins (keeps)", ["a=1; Max-Age=0; Max-Age=100"], "a=1"),
        Case("duplicate Max-Age: the last wins (deletes)", ["a=1; Max-Age=100; Max-Age=0"], nil),
        Case(
            "duplicate Domain: the last wins", ["a=1; Domain=other.example; Domain=h.example"],
            to: "http://w.h.example/", "a=1"),
        Case("secure in capitals", ["a=1; SECURE"], from: "https://h.example/", to: "http://h.example/", nil),
        // Expires in every form.
        Case("Expires, RFC 1123, future", ["a=1; Expires=Wed, 01 Jan 2025 00:00:00 GMT"], "a=1"),
        Case("Expires, RFC 1123, past", ["a=1; Expires=Wed, 01 Jan 2020 00:00:00 GMT"], nil),
        Case("Expires, RFC 850 with a two-digit year", ["a=1; Expires=Wednesday, 01-Jan-25 00:00:00 GMT"], "a=1"),
        Case("Expires, asctime", ["a=1; Expires=Wed Jan  1 00:00:00 2025"], "a=1"),
        Case("Expires, two-digit year 70 is 1970", ["a=1; Expires=Thu, 01 Jan 70 00:00:00 GMT"], nil),
        Case("Expires, two-digit year 69 is 2069", ["a=1; Expires=Tue, 01 Jan 69 00:00:00 GMT"], "a=1"),
        Case("Expires, tokens in any order", ["a=1; Expires=2025 Jan 00:00:00 01"], "a=1"),
        Case("Expires, year 1600 is ignored", ["a=1; Expires=Sat, 01 Jan 1600 00:00:00 GMT"], "a=1"),
        Case("Expires, year 10000 is ignored", ["a=1; Expires=Sat, 01 Jan 10000 00:00:00 GMT"], "a=1"),
        Case("Expires, day 32 is ignored", ["a=1; Expires=Wed, 32 Jan 2020 00:00:00 GMT"], "a=1"),
        Case("Expires, hour 24 is ignored", ["a=1; Expires=Wed, 01 Jan 2020 24:00:00 GMT"], "a=1"),
        Case("Expires, February 30 is ignored", ["a=1; Expires=Sun, 30 Feb 2020 00:00:00 GMT"], "a=1"),
        Case("Expires, not a date", ["a=1; Expires=soon"], "a=1"),
        Case("Max-Age wins over a past Expires", ["a=1; Expires=Wed, 01 Jan 2020 00:00:00 GMT; Max-Age=60"], "a=1"),
        Case("Max-Age wins over a future Expires", ["a=1; Max-Age=0; Expires=Wed, 01 Jan 2025 00:00:00 GMT"], nil),
        // Max-Age.
        Case("Max-Age=0 deletes", ["a=1", "a=1; Max-Age=0"], nil),
        Case("Max-Age negative deletes", ["a=1", "a=2; Max-Age=-1"], nil),
        Case("Max-Age huge", ["a=1; Max-Age=99999999999999999999"], "a=1"),
        Case("Max-Age non-numeric is ignored", ["a=1; Max-Age=abc"], "a=1"),
        Case("Max-Age with + is ignored", ["a=1; Max-Age=+5"], "a=1"),
        Case("Max-Age with a fraction is ignored", ["a=1; Max-Age=1.5"], "a=1"),
        Case("Max-Age empty is ignored", ["a=1; Max-Age="], "a=1"),
        // Domain.
        Case("Domain with a leading dot", ["a=1; Domain=.h.example"], to: "http://w.h.example/", "a=1"),
        Case("Domain with two leading dots is refused", ["a=1; Domain=..h.example"], nil),
        Case(
            "Domain reaches a sibling", ["a=1; Domain=h.example"], from: "http://www.h.example/",
            to: "http://other.h.example/", "a=1"),
        Case(
            "Domain reaches the parent", ["a=1; Domain=h.example"], from: "http://www.h.example/",
            to: "http://h.example/", "a=1"),
        Case("Domain the host does not match", ["a=1; Domain=other.example"], to: "http://other.example/", nil),
        Case("Domain below the host", ["a=1; Domain=sub.h.example"], to: "http://sub.h.example/", nil),
        Case("Domain in capitals", ["a=1; Domain=H.EXAMPLE"], to: "http://w.h.example/", "a=1"),
        Case("Domain empty: host-only", ["a=1; Domain="], to: "http://w.h.example/", nil),
        Case("host-only: not to a subdomain", ["a=1"], to: "http://w.h.example/", nil),
        Case("host-only: not to the parent", ["a=1"], from: "http://w.h.example/", to: "http://h.example/", nil),
        Case("not to a name that only ends the same", ["a=1; Domain=h.example"], to: "http://xh.example/", nil),
        Case(
            "Domain=localhost from a subdomain", ["a=1; Domain=localhost"], from: "http://app.localhost/",
            to: "http://localhost/", nil),
        Case(
            "Domain=localhost from localhost: host-only", ["a=1; Domain=localhost"], from: "http://localhost/",
            "a=1"),
        // IP addresses.
        Case("IP: Domain equal to the host", ["a=1; Domain=127.0.0.1"], from: "http://127.0.0.1/", "a=1"),
        Case(
            "IP: another address", ["a=1; Domain=127.0.0.2"], from: "http://127.0.0.1/",
            to: "http://127.0.0.2/", nil),
        Case("IP: a suffix of the address", ["a=1; Domain=0.0.1"], from: "http://127.0.0.1/", nil),
        Case("IP: hex spelling is the same host", ["a=1"], from: "http://0x7f.1/", to: "http://127.0.0.1/", "a=1"),
        Case("IP: a Domain spelled in hex", ["a=1; Domain=0x7f.0.0.1"], from: "http://127.0.0.1/", "a=1"),
        Case(
            "IPv6: capitals and zeros are the same host", ["a=1"], from: "http://[::1]/",
            to: "http://[0:0:0:0:0:0:0:1]/", "a=1"),
        // IDNs.
        Case(
            "IDN in punycode", ["a=1; Domain=xn--bcher-kva.example"], from: "http://www.xn--bcher-kva.example/",
            to: "http://xn--bcher-kva.example/", "a=1"),
        Case(
            "IDN Domain not in punycode is refused", ["a=1; Domain=bücher.example"],
            from: "http://www.xn--bcher-kva.example/", nil),
        // Public suffixes.
        Case("Domain=co.uk", ["a=1; Domain=co.uk"], from: "http://evil.co.uk/", to: "http://bank.co.uk/", nil),
        Case(
            "Domain=github.io", ["a=1; Domain=github.io"], from: "http://evil.github.io/",
            to: "http://victim.github.io/", nil),
        Case("Domain=com", ["a=1; Domain=com"], from: "http://evil.com/", to: "http://bank.com/", nil),
        Case(
            "Domain equal to a host that is a suffix: host-only", ["a=1; Domain=github.io"],
            from: "http://github.io/", "a=1"),
        Case(
            "... and not sent below it", ["a=1; Domain=github.io"], from: "http://github.io/",
            to: "http://x.github.io/", nil),
        Case(
            "wildcard rule: b.ck is a suffix", ["a=1; Domain=b.ck"], from: "http://a.b.ck/",
            to: "http://c.b.ck/", nil),
        Case(
            "exception rule: www.ck is not a suffix", ["a=1; Domain=www.ck"], from: "http://a.www.ck/",
            to: "http://www.ck/", "a=1"),
        Case(
            "a registrable domain is fine", ["a=1; Domain=example.co.uk"], from: "http://www.example.co.uk/",
            to: "http://example.co.uk/", "a=1"),
        Case(
            "Domain above the registrable domain (a non-suffix parent of a suffix)",
            ["a=1; Domain=amazonaws.com"], from: "http://bucket.s3.amazonaws.com/",
            to: "http://other.s3.amazonaws.com/", nil),
        // Trailing dots.
        Case(
            "Domain=com. from evil.com.", ["a=1; Domain=com."], from: "http://evil.com./", to: "http://bank.com/",
            nil),
        Case("a Domain with a trailing dot is refused", ["a=1; Domain=h.example."], to: "http://w.h.example/", nil),
        Case(
            "a host's trailing dot is the same host", ["a=1"], from: "http://h.example./", to: "http://h.example/",
            "a=1"),
        // Paths.
        Case(
            "the default path is the request's folder", ["a=1"], from: "http://h.example/docs/guide/intro",
            to: "http://h.example/docs/guide/x", "a=1"),
        Case(
            "... not its parent", ["a=1"], from: "http://h.example/docs/guide/intro", to: "http://h.example/docs",
            nil),
        Case(
            "the default path of /login is /", ["a=1"], from: "http://h.example/login",
            to: "http://h.example/anything", "a=1"),
        Case("Path=/foo does not cover /foobar", ["a=1; Path=/foo"], to: "http://h.example/foobar", nil),
        Case("Path=/foo covers /foo/bar", ["a=1; Path=/foo"], to: "http://h.example/foo/bar", "a=1"),
        Case("Path=/foo covers /foo", ["a=1; Path=/foo"], to: "http://h.example/foo", "a=1"),
        Case("Path=/foo/ does not cover /foo", ["a=1; Path=/foo/"], to: "http://h.example/foo", nil),
        Case(
            "a relative Path: the default", ["a=1; Path=x"], from: "http://h.example/a/b",
            to: "http://h.example/a/c", "a=1"),
        Case(
            "an empty Path: the default", ["a=1; Path="], from: "http://h.example/a/b", to: "http://h.example/",
            nil),
        Case(
            "a percent-encoded path", ["a=1"], from: "http://h.example/caf%C3%A9/x",
            to: "http://h.example/caf%C3%A9/y", "a=1"),
        Case("paths compare by bytes, not case", ["a=1; Path=/Foo"], to: "http://h.example/foo", nil),
        // Order.
        Case("longer paths first", ["a=1; Path=/", "b=2; Path=/x"], to: "http://h.example/x/y", "b=2; a=1"),
        Case("then the earlier created", ["b=1", "a=1"], "b=1; a=1"),
        Case("a replaced cookie keeps its place", ["a=1", "b=2", "a=3"], "a=3; b=2"),
        Case(
            "same name, other paths: two cookies", ["a=1; Path=/", "a=2; Path=/x"], to: "http://h.example/x",
            "a=2; a=1"),
        // Ports: no isolation (RFC 6265 §8.5).
        Case(
            "cookies do not isolate ports", ["a=1"], from: "http://h.example:8080/", to: "http://h.example:9090/",
            "a=1"),
        // Secure, prefixes, leave secure cookies alone.
        Case("Secure over http is refused", ["a=1; Secure"], to: "https://h.example/", nil),
        Case("Secure goes over https", ["a=1; Secure"], from: "https://h.example/", "a=1"),
        Case(
            "Secure does not go over http", ["a=1; Secure"], from: "https://h.example/", to: "http://h.example/",
            nil),
        Case(
            "http cannot shadow a Secure cookie with a longer path",
            steps: [("s=1; Secure; Path=/", "https://h.example/"), ("s=evil; Path=/x", "http://h.example/")],
            to: "https://h.example/x", "s=1"),
        Case(
            "http cannot shadow a Secure cookie from a subdomain",
            steps: [("s=1; Secure; Domain=h.example", "https://h.example/"), ("s=evil", "http://w.h.example/")],
            to: "https://w.h.example/", "s=1"),
        Case(
            "http cannot delete a Secure cookie",
            steps: [("s=1; Secure", "https://h.example/"), ("s=; Max-Age=0", "http://h.example/")],
            to: "https://h.example/", "s=1"),
        Case(
            "https can replace it",
            steps: [("s=1; Secure", "https://h.example/"), ("s=2", "https://h.example/")],
            to: "https://h.example/", "s=2"),
        Case("__Secure- needs Secure", ["__Secure-a=1"], from: "https://h.example/", nil),
        Case("__Secure- with Secure", ["__Secure-a=1; Secure"], from: "https://h.example/", "__Secure-a=1"),
        Case(
            "__Host- with Domain is refused", ["__Host-a=1; Secure; Path=/; Domain=h.example"],
            from: "https://h.example/", nil),
        Case("__Host- without Path is refused", ["__Host-a=1; Secure"], from: "https://h.example/x/y", nil),
        Case(
            "__Host- with Path=/x is refused", ["__Host-a=1; Secure; Path=/x"], from: "https://h.example/",
            to: "https://h.example/x", nil),
        Case("__Host- done right", ["__Host-a=1; Secure; Path=/"], from: "https://h.example/", "__Host-a=1"),
        Case("__host- in any case needs Secure", ["__host-a=1; Path=/"], from: "https://h.example/", nil),
        // Stored, not enforced.
        Case("HttpOnly is sent (every use is HTTP)", ["a=1; HttpOnly"], "a=1"),
        Case("SameSite is stored, not enforced", ["a=1; SameSite=Strict"], "a=1"),
    ]

    @Test("the corpus through the jar's API", arguments: cases, [PublicSuffixList.Source.libpsl, .snapshot, .union])
    func corpus(_ test: Case, source: PublicSuffixList.Source) throws {
        let suffixes: PublicSuffixList
        switch source {
        case .snapshot: suffixes = .snapshot
        case .libpsl, .union:
            #if os(Linux)
                // libpsl.so.5 comes with Debian's libcurl: on Linux its absence is a failure, not a skip.
                suffixes = try #require(
                    source == .libpsl ? PublicSuffixList.libpsl : PublicSuffixList.libpsl.map { _ in .shared },
                    "libpsl did not load")
            #else
                guard let list = source == .libpsl ? PublicSuffixList.libpsl : nil else { return }  // no libpsl here
                suffixes = list
            #endif
        }
        let jar = CookieJar(limits: .init(), now: { Self.now }, suffixes: suffixes)
        for (field, from) in test.fields {
            let response = HTTPResponse(status: .ok, headers: [.setCookie: field])
            jar.store(from: response, for: try #require(URL(string: from)))
        }
        #expect(jar.cookieHeader(for: try #require(URL(string: test.request))) == test.expected)
    }

    @Test("the corpus has at least 70 cases")
    func size() {
        #expect(Self.cases.count >= 70)
    }
}
