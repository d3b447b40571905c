import Testing

@testable import Courier

/// One spelling per host: IPv4 in every WHATWG notation, IPv6 through inet_pton, ASCII-only names.
@Suite("Cookie host")
struct CookieHostTests {
    @Test(
        "every spelling of 127.0.0.1 is 127.0.0.1",
        arguments: [
            "127.0.0.1", "0x7f.1", "0X7F.0.0.1", "2130706433", "127.1", "0177.0.0.1", "127.0.1", "0x7f000001",
            "[::ffff:127.0.0.1]", "::FFFF:7F00:1", "127.0.0.1.",
        ])
    func ipv4(spelling: String) throws {
        let host = try #require(CookieHost(spelling))
        #expect(host.name == "127.0.0.1")
        #expect(host.isIPAddress)
    }

    @Test("IPv6 in capitals, zeros or brackets is one host", arguments: ["::1", "[::1]", "0:0:0:0:0:0:0:1", "[0::1]"])
    func ipv6Loopback(spelling: String) throws {
        #expect(CookieHost(spelling)?.name == "::1")
    }

    @Test("an IPv6 address in capitals is lowercased")
    func ipv6Capitals() {
        #expect(CookieHost("[2001:DB8::A]")?.name == "2001:db8::a")
    }

    @Test(
        "not a host: a bad number, five parts, a zone, non-ASCII, an empty label, a long label",
        arguments: [
            "256.0.0.1", "1.2.3.4.5", "09.0.0.1", "4294967296", "fe80::1%eth0", "example\u{212A}.com",
            "bücher.example", "a..b", ".a", "a b", "a%2eb", String(repeating: "a", count: 64) + ".com", "",
        ])
    func refused(spelling: String) {
        #expect(CookieHost(spelling) == nil)
    }

    @Test("names: lowercase ASCII, a trailing dot dropped, 60 labels kept")
    func names() {
        #expect(CookieHost("WWW.Example.COM.")?.name == "www.example.com")
        #expect(CookieHost("WWW.Example.COM.")?.isIPAddress == false)
        #expect(CookieHost("1.example")?.isIPAddress == false)
        #expect(CookieHost("0x1g")?.isIPAddress == false)  // not a number: a name, as WHATWG reads it
        let long = (0..<60).map { "l\($0)" }.joined(separator: ".") + ".evil.com"
        #expect(CookieHost(long)?.name == long)
    }

    @Test("domain match: a name under the domain; an IP address only itself")
    func domainMatch() throws {
        #expect(try #require(CookieHost("a.example.com")).domainMatches("example.com"))
        #expect(!(try #require(CookieHost("aexample.com")).domainMatches("example.com")))
        #expect(!(try #require(CookieHost("127.0.0.1")).domainMatches("0.0.1")))
    }
}
