import Foundation
import Testing

@testable import Courier

/// Both sources of the Public Suffix List (libpsl, loaded at run time, and the bundled snapshot)
/// answer the same cases: ICANN and private rules, wildcards, exceptions, the implicit `*` rule.
@Suite("Public suffix list")
struct PublicSuffixListTests {
    static let sources: [PublicSuffixList.Source] = [.libpsl, .snapshot, .union]

    static let suffixes: [(String, Bool)] = [
        ("com", true), ("example.com", false), ("co.uk", true), ("uk", true), ("example.co.uk", false),
        ("github.io", true), ("user.github.io", false), ("ck", true), ("b.ck", true), ("www.ck", false),
        ("a.www.ck", false), ("example", true), ("h.example", false), ("localhost", true),
        ("s3.amazonaws.com", true), ("amazonaws.com", false), ("xn--p1ai", true), ("xn--80ak6aa92e.com", false),
    ]

    static let registrable: [(String, String?)] = [
        ("a.b.example.com", "example.com"), ("example.com", "example.com"), ("com", nil),
        ("www.example.co.uk", "example.co.uk"), ("co.uk", nil), ("evil.github.io", "evil.github.io"),
        ("a.evil.github.io", "evil.github.io"), ("github.io", nil), ("a.b.ck", "a.b.ck"), ("x.a.b.ck", "a.b.ck"),
        ("b.ck", nil), ("www.ck", "www.ck"), ("a.www.ck", "www.ck"), ("x.y.h.example", "h.example"),
    ]

    private func list(_ source: PublicSuffixList.Source) throws -> PublicSuffixList {
        switch source {
        case .libpsl: try #require(PublicSuffixList.libpsl, "libpsl.so.5 is installed wherever libcurl is")
        case .snapshot: .snapshot
        case .union:
            try #require(PublicSuffixList.libpsl != nil ? PublicSuffixList.shared : nil, "libpsl.so.5 is installed")
        }
    }

    @Test("public suffixes", arguments: sources)
    func isPublicSuffix(source: PublicSuffixList.Source) throws {
        let list = try list(source)
        for (domain, expected) in Self.suffixes {
            #expect(list.isPublicSuffix(domain) == expected, "\(domain)")
        }
    }

    @Test("registrable domains", arguments: sources)
    func registrableDomains(source: PublicSuffixList.Source) throws {
        let list = try list(source)
        for (domain, expected) in Self.registrable {
            #expect(list.registrableDomain(domain) == expected, "\(domain)")
        }
    }

    @Test("the snapshot is dated and whole")
    func snapshot() {
        #expect(PublicSuffixSnapshot.date.count == 10)
        #expect(PublicSuffixSnapshot.rules.split(separator: "\n").count > 5000)
        #expect(PublicSuffixList.shared.source == (PublicSuffixList.libpsl == nil ? .snapshot : .union))
    }

    /// Review finding 2: Debian 12's libpsl reads the list of February 2023; suffixes added since
    /// (only in the bundled snapshot) must be refused too, and sites measured by the longest suffix.
    @Test("the jar's list is the union of the system's and the snapshot's")
    func union() {
        let shared = PublicSuffixList.shared
        for suffix in ["bank.in", "amplifyapp.com"] {
            #expect(PublicSuffixList.snapshot.isPublicSuffix(suffix), "\(suffix) is in the snapshot")
            #expect(shared.isPublicSuffix(suffix), "\(suffix)")
        }
        #expect(shared.registrableDomain("a.sbi.bank.in") == "sbi.bank.in")
        #expect(shared.registrableDomain("x.evil.amplifyapp.com") == "evil.amplifyapp.com")
        #expect(shared.registrableDomain("bank.in") == nil)
        let jar = CookieJar()
        let url = { (text: String) in URL(string: text)! }
        #expect(!jar.store(setCookie: "sid=EVIL; Domain=bank.in; Path=/", from: url("https://evil.bank.in/")))
        #expect(
            !jar.store(setCookie: "s=EVIL; Domain=amplifyapp.com; Path=/", from: url("https://evil.amplifyapp.com/")))
        #expect(jar.cookieHeader(for: url("https://sbi.bank.in/")) == nil)
        #expect(jar.cookieHeader(for: url("https://victim.amplifyapp.com/")) == nil)
    }

    @Test("a host of 60 labels is answered quickly by both sources", arguments: sources)
    func longHost(source: PublicSuffixList.Source) throws {
        let list = try list(source)
        let host = (0..<60).map { "l\($0)" }.joined(separator: ".") + ".evil.com"
        #expect(list.registrableDomain(host) == "evil.com")
        #expect(!list.isPublicSuffix(host))
    }
}
