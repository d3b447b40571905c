import Testing

@testable import Courier

/// The incremental UTF-8 check on Autobahn's 6.x cases (built on Markus Kuhn's UTF-8 decoder
/// stress test; the table is autobahntestsuite 25.10.1's case6_x_x.py, ported), every scalar value,
/// and its fail-fast positions (cases 6.4.x).
@Suite("UTF-8 validator")
struct UTF8ValidatorTests {
    private static func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex) }

    /// Valid sequences of Autobahn 6.5–6.23 (hex).
    static let valid: [String] =
        [
            // 1: some correct UTF-8 text
            "68656c6c6f24776f726c64", "68656c6c6fc2a2776f726c64", "68656c6c6fe282ac776f726c64",
            "68656c6c6ff0a4ada2776f726c64", "cebae1bdb9cf83cebcceb5",
            // 2.1 first possible sequence of each length; 2.2 last; 2.3 other boundaries
            "00", "c280", "e0a080", "f0908080", "7f", "dfbf", "efbfbf", "f48fbfbf", "ed9fbf", "ee8080", "efbfbd",
            // 5.3 non-characters are valid UTF-8; Unicode specials
            "efbfbe", "efbfbf", "efbfb9", "efbfba", "efbfbb", "efbfbc",
        ] + nonCharacters

    /// 5.3: the four-byte non-characters F[0-4] [89AB]F BF [BE-BF] (not past U+10FFFF, not overlong).
    static let nonCharacters: [String] = ["f0", "f1", "f2", "f3", "f4"].flatMap { first in
        ["8f", "9f", "af", "bf"].flatMap { second in
            ["be", "bf"].map { first + second + "bf" + $0 }
        }
    }.filter { !($0.hasPrefix("f4") && !$0.hasPrefix("f48f")) && !$0.hasPrefix("f08f") }

    /// Invalid sequences of Autobahn 6.5–6.23 (hex).
    static let invalid: [String] = [
        // 2.1–2.2 five- and six-byte forms, and four-byte ones past U+10FFFF
        "f888808080", "fc8480808080", "f7bfbfbf", "fbbfbfbfbf", "fdbfbfbfbfbf", "f4908080",
        // 3.1 unexpected continuation bytes
        "80", "bf", "80bf", "80bf80", "80bf80bf", "80bf80bf80", "80bf80bf80bf",
        (0x80..<0xBF).map { String($0, radix: 16) }.joined(),
        // 3.2 lonely start bytes, each followed by a space
        (0xC0..<0xDF).map { String($0, radix: 16) + "20" }.joined(),
        (0xE0..<0xEF).map { String($0, radix: 16) + "20" }.joined(),
        (0xF0..<0xF7).map { String($0, radix: 16) + "20" }.joined(),
        (0xF8..<0xFB).map { String($0, radix: 16) + "20" }.joined(),
        (0xFC..<0xFD).map { String($0, radix: 16) + "20" }.joined(),
        // 3.3 sequences with their last continuation byte missing; 3.4 all of them in a row
        "c0", "e080", "f08080", "f8808080", "fc80808080", "df", "efbf", "f7bfbf", "fbbfbfbf", "fdbfbfbfbf",
        "c0e080f08080f8808080fc80808080dfefbff7bfbffbbfbfbffdbfbfbfbf",
        // 3.5 impossible bytes
        "fe", "ff", "fefeffff",
        // 4.1 overlong ASCII; 4.2 maximum overlongs; 4.3 overlong NUL
        "c0af", "e080af", "f08080af", "f8808080af", "fc80808080af",
        "c1bf", "e09fbf", "f08fbfbf", "f887bfbfbf", "fc83bfbfbfbf",
        "c080", "e08080", "f0808080", "f880808080", "fc8080808080",
        // 5.1 single surrogates; 5.2 paired surrogates
        "eda080", "edadbf", "edae80", "edafbf", "edb080", "edbe80", "edbfbf",
        "eda080edb080", "eda080edbfbf", "edadbfedb080", "edadbfedbfbf", "edae80edb080", "edae80edbfbf",
        "edafbfedb080", "edafbfedbfbf",
    ]

    private func check(_ bytes: [UInt8], in pieces: Int) -> Bool {
        var validator = UTF8Validator()
        let size = max(1, (bytes.count + pieces - 1) / pieces)
        for start in stride(from: 0, to: bytes.count, by: size) {
            validator.validate(Array(bytes[start..<min(start + size, bytes.count)]))
        }
        return validator.isComplete
    }

    @Test("Autobahn's valid sequences pass, whole and cut at every length", arguments: valid)
    func validSequences(hex: String) {
        let bytes = Self.bytes(hex)
        for pieces in 1...max(1, bytes.count) { #expect(check(bytes, in: pieces), "\(pieces) pieces") }
    }

    @Test("Autobahn's invalid sequences fail, whole and cut at every length", arguments: invalid)
    func invalidSequences(hex: String) {
        let bytes = Self.bytes(hex)
        for pieces in 1...max(1, bytes.count) { #expect(!check(bytes, in: pieces), "\(pieces) pieces") }
    }

    @Test("all prefixes of κόσμε: valid exactly when they end on a code point boundary")
    func prefixes() {
        let text = Self.bytes("cebae1bdb9cf83cebcceb5")
        for end in 1...text.count {
            let prefix = Array(text[..<end])
            #expect(check(prefix, in: 1) == (String(validating: prefix, as: UTF8.self) != nil), "\(end) bytes")
        }
    }

    @Test("every scalar value U+0000–U+10FFFF is valid; every surrogate encoded is not")
    func everyScalar() {
        var validator = UTF8Validator()
        var all: [UInt8] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            all.append(contentsOf: Array(String(scalar).utf8))
        }
        let allValid = validator.validate(all)
        #expect(allValid)
        #expect(validator.isComplete)
        for value in UInt32(0xD800)...0xDFFF {
            let encoded: [UInt8] = [
                0xE0 | UInt8(value >> 12), 0x80 | UInt8((value >> 6) & 0x3F), 0x80 | UInt8(value & 0x3F),
            ]
            var one = UTF8Validator()
            let isValid = one.validate(encoded)
            #expect(!isValid, "U+\(String(value, radix: 16))")
        }
    }

    @Test("Autobahn 6.4.x: the failure comes at the first byte that proves it, not at the end")
    func failsFast() {
        // κόσμε, then F4 90 80 80 (0x110000 in the integer scheme): invalid at the 0x90.
        var validator = UTF8Validator()
        let steps = [Self.bytes("cebae1bdb9cf83cebcceb5"), [0xF4], [0x90]].map { validator.validate($0) }
        #expect(steps == [true, true, false])
        // "edited" then ED A0 80: invalid at the A0, whatever the cut.
        var split = UTF8Validator()
        let first = split.validate(Self.bytes("65646974656465ed"))
        #expect(first && !split.isComplete)
        let second = split.validate([0xA0, 0x80])
        #expect(!second)
        var immediate = UTF8Validator()
        // Once invalid, always invalid.
        let results = [[0xF5], [0x41]].map { immediate.validate($0) }
        #expect(results == [false, false])
    }

    @Test("ASCII runs of every length around the eight-byte fast path stay exact")
    func asciiRuns() {
        for count in 0..<20 {
            let ascii = [UInt8](repeating: 0x41, count: count)
            #expect(check(ascii + [0xC3, 0xA9] + ascii, in: 1))
            #expect(!check(ascii + [0xC3] + ascii, in: 1), "\(count)")
            #expect(!check(ascii + [0xFF], in: 1), "\(count)")
        }
    }
}
