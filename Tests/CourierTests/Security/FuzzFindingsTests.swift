import Foundation
import Testing

@testable import Courier

/// What the fuzz targets (scripts/fuzz) found, each pinned where the suite runs every time.
@Suite("Fuzz findings")
struct FuzzFindingsTests {
    @Test("a suggested file name shortened to 200 bytes never uncovers a leading dot (was: a hidden file)")
    func shortenedNameStaysVisible() {
        let long = "xxxxx" + ".secret" + String(repeating: "y", count: 193)
        let head = HTTPResponse(status: .ok, headers: [.contentDisposition: "attachment; filename=\"\(long)\""])
        let name = SuggestedFileName.name(for: head, requestURL: URL(string: "https://example.com/f")!)
        #expect(!name.hasPrefix("."), "\(name)")
        #expect(name.hasPrefix("secret"))
        #expect(name.utf8.count <= 200)
        // Spaces and dots uncovered together go too.
        let spaced = "abcdefg" + " . .tail" + String(repeating: "w", count: 192)
        #expect(SuggestedFileName.sanitised(spaced)?.hasPrefix("tail") == true)
    }

    @Test("a Retry-After or Expires of odd characters is not a date, and never reaches DateFormatter (was: a crash)")
    func dateThatCrashedFoundation() {
        let hostile = String(
            decoding: [
                0x53, 0x75, 0x20, 0x20, 0xD9, 0x9F, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
                0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0xCF, 0x20, 0x20, 0x6E, 0x20, 0x2C, 0x20, 0x20, 0x20, 0x20,
                0x20, 0x20, 0x20, 0x20, 0xE5,
            ] as [UInt8], as: UTF8.self)
        #expect(HTTPDate.parse(hostile) == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
    }
}
