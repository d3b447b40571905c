// The fuzzing entry points: one libFuzzer binary for every target, the target chosen by
// COURIER_FUZZ_TARGET (scripts/fuzz sets it). Built by scripts/fuzz against Courier's sources with
// `-enable-testing`, so targets reach the internal parsers. A target checks a property beyond "does
// not crash" and calls `violated(_:)` (a trap libFuzzer records with its input) when it fails.
import Foundation

@testable import Courier
@testable import CourierImages

/// One fuzz target: a name and what it does with an input.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
}

let allTargets: [FuzzTarget] = [
    headParserTarget, linkHeaderTarget, cacheControlTarget, httpDateTarget, mediaTypeTarget, fileNameTarget,
    imageHeaderTarget, queryTarget, multipartTarget, pathTarget, redactionTarget, originTarget,
    serverSentEventsTarget, cookieTarget, linesTarget, inflateTarget, webSocketTarget,
]

let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["COURIER_FUZZ_TARGET"] ?? ""
    guard let target = allTargets.first(where: { $0.name == name }) else {
        let names = allTargets.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("set COURIER_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func courierFuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Stops the run: libFuzzer keeps the input that broke the property.
func violated(_ property: String, _ detail: @autoclosure () -> String = "") -> Never {
    FileHandle.standardError.write(Data("property violated: \(property) \(detail())\n".utf8))
    abort()
}

/// Reads typed values off the front of a fuzz input.
struct FuzzReader {
    private var bytes: [UInt8]
    private var index = 0

    init(_ input: UnsafeRawBufferPointer) {
        bytes = Array(input)
    }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Up to `maximum` bytes (the count read first), as UTF-8 with invalid bytes replaced.
    mutating func string(maximum: Int = 64) -> String {
        let count = Int(byte()) % (maximum + 1)
        let end = min(bytes.count, index + count)
        defer { index = end }
        return String(decoding: bytes[index..<end], as: UTF8.self)
    }

    mutating func data(maximum: Int = 256) -> Data {
        let count = (Int(byte()) << 8 | Int(byte())) % (maximum + 1)
        let end = min(bytes.count, index + count)
        defer { index = end }
        return Data(bytes[index..<end])
    }

    mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return index < bytes.count ? Array(bytes[index...]) : []
    }
}
