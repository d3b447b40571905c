import CCourierCurl
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libcurl's callbacks: plain C functions that find their ``CurlTransfer`` through the context
/// pointer, which the loop keeps alive (in its table of running transfers) for as long as the
/// handle runs, and hand the bytes to the transfer's own methods (``CurlTransfer/receiveHeaderLine(_:)``,
/// ``CurlTransfer/receiveBody(_:)``, ``CurlTransfer/readBody(into:)``, ``CurlTransfer/seekBody(to:)``),
/// on the loop thread.
enum CurlCallbacks {
    static let header: ccurl_data_callback = { buffer, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
    }

    static let write: ccurl_data_callback = { buffer, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        switch transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length)) {
        case .taken: return length
        case .stop: return 0
        case .pause: return Int(CCURL_WRITEFUNC_PAUSE)
        }
    }

    static let read: ccurl_data_callback = { buffer, size, count, context in
        guard let context, let buffer else { return Int(CCURL_READFUNC_ABORT) }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    }

    static let seek: ccurl_seek_callback = { context, offset, origin in
        guard let context, origin == SEEK_SET else { return Int32(CCURL_SEEKFUNC_FAIL) }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.seekBody(to: offset) ? Int32(CCURL_SEEKFUNC_OK) : Int32(CCURL_SEEKFUNC_FAIL)
    }
}
