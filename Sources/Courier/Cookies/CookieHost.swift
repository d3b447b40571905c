#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A host as the cookie jar compares it: one spelling per host, so that a `Domain` attribute
/// cannot reach an IP address by writing it differently, and IP addresses are always host-only.
///
/// - A name is lowercase ASCII (IDNs in punycode), without its trailing dot (`example.com.` is
///   `example.com`), with no empty label, at most 253 bytes and 63 a label. Only letters, digits,
///   `-` and `_`; anything else (a non-ASCII byte, `%`, a space) is refused: the jar does not
///   lowercase by Unicode's rules (U+212A KELVIN SIGN lowercases to `k`).
/// - An IPv4 address is parsed as the WHATWG URL standard does (a host whose last label is a
///   number: one to four parts, decimal, octal with a leading 0 or hex with 0x), so `0x7f.1`,
///   `2130706433`, `127.1` and `0177.0.0.1` are all `127.0.0.1`.
/// - An IPv6 address (with or without brackets) is read and written back by `inet_pton` and
///   `inet_ntop` (lowercase, shortest form); an IPv4-mapped one (`::ffff:127.0.0.1`) is the IPv4
///   address it reaches.
struct CookieHost: Hashable, Sendable {
    /// The canonical spelling.
    let name: String
    /// Whether it is an IP address.
    let isIPAddress: Bool

    /// `nil` for a host the jar neither stores nor sends cookies for.
    init?(_ raw: String) {
        var text = Substring(raw)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.utf8.contains(UInt8(ascii: ":")) {
            guard let address = Self.ipv6(String(text)) else { return nil }
            name = address
            isIPAddress = true
            return
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty, text.utf8.count <= 253 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte + 0x20)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "_"), UInt8(ascii: "."):
                bytes.append(byte)
            default: return nil
            }
        }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.allSatisfy({ (1...63).contains($0.count) }) else { return nil }
        if let last = labels.last, Self.isNumber(last) {
            guard let address = Self.ipv4(labels) else { return nil }
            name = address
            isIPAddress = true
        } else {
            name = String(decoding: bytes, as: UTF8.self)
            isIPAddress = false
        }
    }

    /// Whether this host is `domain` or a name under it (RFC 6265 §5.1.3); an IP address only
    /// matches itself.
    func domainMatches(_ domain: String) -> Bool {
        if name == domain { return true }
        guard !isIPAddress, name.utf8.count > domain.utf8.count, name.hasSuffix(domain) else { return false }
        return name.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: ".")
    }

    /// WHATWG's "ends in a number": all digits, or `0x` and hex digits.
    private static func isNumber(_ label: ArraySlice<UInt8>) -> Bool {
        if label.allSatisfy({ (0x30...0x39).contains($0) }) { return true }
        guard label.count >= 2, label[label.startIndex] == 0x30, label[label.startIndex + 1] == UInt8(ascii: "x")
        else { return false }
        return label.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// WHATWG URL's IPv4 parser: up to four numbers, every one but the last at most 255, the
    /// last filling the remaining bytes.
    private static func ipv4(_ labels: [ArraySlice<UInt8>]) -> String? {
        guard labels.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for label in labels {
            var digits = label[...]
            var radix: UInt64 = 10
            if digits.count >= 2, digits.first == 0x30, digits[digits.startIndex + 1] == UInt8(ascii: "x") {
                digits = digits.dropFirst(2)
                radix = 16
            } else if digits.count >= 2, digits.first == 0x30 {
                digits = digits.dropFirst()
                radix = 8
            }
            var value: UInt64 = 0
            for byte in digits {
                guard let digit = byte.hexValue, UInt64(digit) < radix else { return nil }
                value = value * radix + UInt64(digit)
                if value > 0xFFFF_FFFF { return nil }
            }
            numbers.append(value)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        let last = numbers[numbers.count - 1]
        guard last < (UInt64(1) << (8 * (5 - numbers.count))) else { return nil }
        var address = last
        for (index, number) in numbers.dropLast().enumerated() { address += number << (8 * (3 - index)) }
        return (0..<4).map { String((address >> (8 * (3 - $0))) & 0xFF) }.joined(separator: ".")
    }

    private static func ipv6(_ text: String) -> String? {
        var address = in6_addr()
        guard !text.utf8.contains(UInt8(ascii: "%")), inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map { String($0) }.joined(separator: ".")
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool { hexValue != nil }

    fileprivate var hexValue: UInt8? {
        switch self {
        case 0x30...0x39: return self - 0x30
        case 0x61...0x66: return self - 0x61 + 10
        default: return nil
        }
    }
}
