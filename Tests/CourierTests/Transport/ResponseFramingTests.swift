import Testing

@testable import Courier

@Suite("Content-Length framing")
struct ResponseFramingTests {
    @Test(
        "a Content-Length frames the body only as one non-negative number that fits",
        arguments: [
            (["42"], true), (["0"], true), ([" 42 "], true), (["42, 42"], true), (["42", "42"], true),
            ([String](), true), (["999999999999999999"], true),
            (["-1"], false), (["4x"], false), (["42, 43"], false), (["42", "43"], false),
            (["99999999999999999999"], false), (["9223372036854775808"], false),
            // RFC 9110 §8.6: digits only; Int(_:) would take a sign.
            (["+42"], false), (["-0"], false), (["+0"], false), (["42, +42"], false), (["4 2"], false),
            ([""], false), (["42,"], false), ([","], false), (["0x2A"], false), (["\t42\t"], true),
            (["9223372036854775807"], true), (["٤٢"], false),
        ])
    func framing(values: [String], frames: Bool) {
        var headers = HTTPHeaders()
        for value in values { headers.add(.contentLength, value) }
        #expect((ResponseFraming.lengthProblem(headers) == nil) == frames, "\(values)")
    }
}
