/// RFC 3986 percent-encoding, written out so that it is the same on every platform (Foundation's
/// `.urlQueryAllowed` leaves `&`, `=`, `+` and `?` as they are, which breaks query values).
enum PercentEncoding {
    /// Whether a byte is an RFC 3986 unreserved character: `A–Z a–z 0–9 - . _ ~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Encodes every byte of the UTF-8 form except unreserved characters (and, when given, the
    /// bytes in `alsoAllowed`). With `spaceAsPlus`, a space becomes `+` (form bodies).
    static func encode(_ string: String, alsoAllowed: Set<UInt8> = [], spaceAsPlus: Bool = false) -> String {
        encode(bytes: string.utf8, alsoAllowed: alsoAllowed, spaceAsPlus: spaceAsPlus)
    }

    /// Encodes bytes as ``encode(_:alsoAllowed:spaceAsPlus:)`` does.
    static func encode(bytes: some Collection<UInt8>, alsoAllowed: Set<UInt8> = [], spaceAsPlus: Bool = false)
        -> String
    {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for byte in bytes {
            if isUnreserved(byte) || alsoAllowed.contains(byte) {
                output.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes name–value pairs as `name=value&…`; a `nil` value gives the bare name.
    static func encodeQuery(_ items: some Sequence<(name: String, value: String?)>, spaceAsPlus: Bool = false)
        -> String
    {
        items.map { item in
            let name = encode(item.name, spaceAsPlus: spaceAsPlus)
            guard let value = item.value else { return name }
            return name + "=" + encode(value, spaceAsPlus: spaceAsPlus)
        }
        .joined(separator: "&")
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
