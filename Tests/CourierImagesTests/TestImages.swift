import Foundation

/// Small images of each format, made byte by byte for the tests.
enum TestImages {
    private static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(value >> (8 * $0) & 0xFF) }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// A valid RGB PNG (zlib "stored" blocks, so no compressor is needed).
    static func png(width: Int, height: Int) -> Data {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { raw += [UInt8(x % 256), UInt8(y % 256), 128] }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let final: UInt8 = offset + length == raw.count ? 1 : 0
            zlib += [final] + littleEndian(length, 2) + littleEndian(~length & 0xFFFF, 2)
            zlib += raw[offset..<offset + length]
            offset += length
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        zlib += bigEndian32(Int(b << 16 | a))
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
        }
        let header = bigEndian32(width) + bigEndian32(height) + [8, 2, 0, 0, 0]
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib)
                + chunk("IEND", []))
    }

    /// A valid two-colour GIF89a; its LZW codes stay 3 bits wide by clearing the table every other code.
    static func gif(width: Int, height: Int) -> Data {
        var codes: [Int] = []
        for pixel in 0..<(width * height) {
            if pixel % 2 == 0 { codes.append(4) }
            codes.append(pixel % 2)
        }
        codes.append(5)
        var packed: [UInt8] = []
        var buffer = 0
        var bits = 0
        for code in codes {
            buffer |= code << bits
            bits += 3
            while bits >= 8 {
                packed.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                bits -= 8
            }
        }
        if bits > 0 { packed.append(UInt8(buffer & 0xFF)) }
        var blocks: [UInt8] = []
        for start in stride(from: 0, to: packed.count, by: 255) {
            let block = packed[start..<min(start + 255, packed.count)]
            blocks += [UInt8(block.count)] + block
        }
        let screen = littleEndian(width, 2) + littleEndian(height, 2) + [0x80, 0, 0]
        let palette: [UInt8] = [0, 0, 0, 255, 255, 255]
        let descriptor =
            [0x2C] + littleEndian(0, 2) + littleEndian(0, 2) + littleEndian(width, 2) + littleEndian(height, 2) + [0]
        return Data(Array("GIF89a".utf8) + screen + palette + descriptor + [2] + blocks + [0, 0x3B])
    }

    /// A valid 24-bit BMP.
    static func bmp(width: Int, height: Int) -> Data {
        let rowSize = (width * 3 + 3) / 4 * 4
        let pixels = rowSize * height
        var bytes: [UInt8] = Array("BM".utf8) + littleEndian(54 + pixels, 4) + [0, 0, 0, 0] + littleEndian(54, 4)
        bytes += littleEndian(40, 4) + littleEndian(width, 4) + littleEndian(height, 4) + [1, 0, 24, 0]
        bytes += [UInt8](repeating: 0, count: 24)
        bytes += [UInt8](repeating: 200, count: pixels)
        return Data(bytes)
    }

    /// A baseline JPEG's marker structure (SOI, APP0 JFIF, DQT, SOF0 with the size, SOS, EOI).
    static func jpeg(width: Int, height: Int) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        bytes += [0xFF, 0xC0, 0x00, 0x0B, 0x08] + [UInt8(height >> 8), UInt8(height & 0xFF)]
        bytes += [UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00]
        bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x00, 0xFF, 0xD9]
        return Data(bytes)
    }

    /// A WebP container with a lossless (`VP8L`), lossy (`VP8 `) or extended (`VP8X`) first chunk.
    static func webp(width: Int, height: Int, kind: String) -> Data {
        var chunk: [UInt8]
        switch kind {
        case "VP8L":
            let bits = (width - 1) | (height - 1) << 14
            chunk = Array("VP8L".utf8) + littleEndian(5, 4) + [0x2F] + littleEndian(bits, 4)
        case "VP8 ":
            chunk = Array("VP8 ".utf8) + littleEndian(10, 4) + [0, 0, 0, 0x9D, 0x01, 0x2A]
            chunk += littleEndian(width, 2) + littleEndian(height, 2)
        default:
            chunk = Array("VP8X".utf8) + littleEndian(10, 4) + [0, 0, 0, 0] + littleEndian(width - 1, 3)
            chunk += littleEndian(height - 1, 3)
        }
        return Data(Array("RIFF".utf8) + littleEndian(4 + chunk.count, 4) + Array("WEBP".utf8) + chunk)
    }
}
