import Foundation
import Testing

@testable import CourierImages

/// What the image-header fuzz target found.
@Suite("Image header fuzz findings")
struct ImageHeaderFuzzFindingsTests {
    /// A baseline JPEG start: SOI, then SOF0 with the given height and width.
    private func jpeg(height: UInt16, width: UInt16) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08]
        bytes += [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)]
        bytes += [0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        return Data(bytes)
    }

    @Test("a JPEG whose frame header gives a side of zero has no size (was: 255×0)")
    func zeroSide() {
        #expect(ImageHeader.pixelSize(of: jpeg(height: 0, width: 255), format: .jpeg) == nil)
        #expect(ImageHeader.pixelSize(of: jpeg(height: 16, width: 0), format: .jpeg) == nil)
        let size = ImageHeader.pixelSize(of: jpeg(height: 16, width: 32), format: .jpeg)
        #expect(size?.width == 32 && size?.height == 16)
    }
}
