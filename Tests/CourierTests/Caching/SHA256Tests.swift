import Courier
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test(
        "matches the FIPS 180-4 and NIST test vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                String(repeating: "a", count: 1_000_000),
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            ),
            // 55 and 56 bytes: the padding boundary.
            (String(repeating: "x", count: 55), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
            (String(repeating: "x", count: 56), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
        ]
    )
    func vectors(input: String, digest: String) {
        #expect(SHA256.hexDigest(input) == digest)
    }
}
