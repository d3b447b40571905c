import Foundation

/// Pixel sizes read from image file headers, byte by byte; every read is bounds-checked, so a
/// truncated or hostile file gives `nil`, never a crash.
enum ImageHeader {
    /// The size, or `nil` when the header is truncated, malformed, or gives a side of zero (no
    /// image has one; a JPEG may defer its height to a DNL marker, which is not read).
    static func pixelSize(of data: Data, format: ImageFormat) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(format == .jpeg ? 1 << 20 : 64))
        let size: (Int, Int)? =
            switch format {
            case .png: png(bytes)
            case .gif: gif(bytes)
            case .bmp: bmp(bytes)
            case .webp: webp(bytes)
            case .jpeg: jpeg(bytes)
            }
        guard let size, size.0 > 0, size.1 > 0 else { return nil }
        return size
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// IHDR is the first chunk: width and height at bytes 16 and 20.
    private static func png(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, bytes[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        guard let width = bigEndian(bytes, 16, 4), let height = bigEndian(bytes, 20, 4) else { return nil }
        return (width, height)
    }

    /// The logical screen size, little-endian, at bytes 6 and 8.
    private static func gif(_ bytes: [UInt8]) -> (Int, Int)? {
        guard let width = littleEndian(bytes, 6, 2), let height = littleEndian(bytes, 8, 2) else { return nil }
        return (width, height)
    }

    /// BITMAPINFOHEADER: signed width and height at 18 and 22 (a negative height means top-down).
    private static func bmp(_ bytes: [UInt8]) -> (Int, Int)? {
        guard let width = littleEndian(bytes, 18, 4), let height = littleEndian(bytes, 22, 4) else { return nil }
        let signedWidth = Int(Int32(truncatingIfNeeded: width))
        let signedHeight = Int(Int32(truncatingIfNeeded: height))
        return (abs(signedWidth), abs(signedHeight))
    }

    /// The first chunk decides: `VP8X` (24-bit sizes minus one), `VP8L` (14-bit sizes minus one),
    /// or `VP8 ` (a key frame's 14-bit sizes after its start code).
    private static func webp(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 16 else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8X":
            guard let width = littleEndian(bytes, 24, 3), let height = littleEndian(bytes, 27, 3) else { return nil }
            return (width + 1, height + 1)
        case "VP8L":
            guard bytes.count > 20, bytes[20] == 0x2F, let bits = littleEndian(bytes, 21, 4) else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8 ":
            guard bytes.count >= 30, bytes[23..<26] == [0x9D, 0x01, 0x2A], let width = littleEndian(bytes, 26, 2),
                let height = littleEndian(bytes, 28, 2)
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        default:
            return nil
        }
    }

    /// Walks the marker segments to the first start-of-frame (SOF0–SOF15 except DHT, JPG, DAC).
    private static func jpeg(_ bytes: [UInt8]) -> (Int, Int)? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            guard let length = bigEndian(bytes, offset + 2, 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = bigEndian(bytes, offset + 5, 2), let width = bigEndian(bytes, offset + 7, 2) else {
                    return nil
                }
                return (width, height)
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            offset += 2 + length
        }
        return nil
    }
}
