import CCourierZlib
import Foundation

/// Decodes a body's `Content-Encoding` piece by piece, a bounded number of bytes at a time: memory
/// stays within what the caller asks for however much a piece inflates (a decompression bomb
/// included). Used where Courier decodes a body itself, at its reader's pace (a stream on
/// ``CurlTransport``, whose libcurl would otherwise inflate a whole network read at once).
///
/// Decodes `gzip` (and `x-gzip`, several members in a row included) and `deflate` (zlib's format,
/// or the raw deflate some servers send under that name); zlib is loaded at run time, as libcurl
/// is. Bytes after the end of the compressed data that do not start another gzip member are
/// ignored, as Chromium ignores them (libcurl, which decodes Courier's other calls, fails such a
/// body, and decodes only the first member).
///
/// Not `Sendable`: one reader owns it.
final class ContentDecoder {
    /// The codings Courier decodes.
    enum Coding: String {
        case gzip, deflate
    }

    /// What a stream asks servers for when Courier decodes it.
    static let acceptedCodings = "gzip, deflate"

    let coding: Coding
    private var inflater: OpaquePointer?
    private var input = Data()
    private var inputOffset = 0
    /// Whether the current compressed stream (gzip member) has ended.
    private var hasEnded = false
    /// Whether any input arrived (an empty body with a coding is an empty body).
    private var hasInput = false
    /// Whether bytes that start no member followed the end: everything after them is dropped.
    private var discardsRest = false

    /// The coding of a `Content-Encoding` value: `nil` for none or `identity`.
    ///
    /// - Throws: ``APIError`` (``TransportFailure/badResponse``) for a coding Courier cannot decode
    ///   (`br`, `zstd`, `compress`…) or more than one coding.
    static func coding(of contentEncoding: String?) throws -> Coding? {
        let codings = (contentEncoding ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        guard codings.count == 1, let coding = Coding(rawValue: codings[0] == "x-gzip" ? "gzip" : codings[0]) else {
            throw APIError(
                .transport(.badResponse),
                message: "the server answered with Content-Encoding \"\(contentEncoding ?? "")\", which Courier "
                    + "cannot decode (it asked for \(acceptedCodings))")
        }
        return coding
    }

    /// A decoder for `coding`.
    ///
    /// - Throws: ``APIError`` when zlib cannot be loaded.
    init(_ coding: Coding) throws {
        self.coding = coding
        var error = [CChar](repeating: 0, count: 256)
        guard ccourier_zlib_load(&error, error.count) == 0 else {
            throw APIError(.transport(.other), message: Self.text(error))
        }
    }

    deinit {
        ccourier_inflater_free(inflater)
    }

    /// Whether input waits to be decoded.
    var hasPendingInput: Bool { inputOffset < input.count }

    /// Takes the next compressed bytes.
    func feed(_ piece: Data) {
        guard !piece.isEmpty else { return }
        hasInput = true
        if inputOffset == input.count {
            input = piece
            inputOffset = 0
        } else {
            input = input.subdata(in: (input.startIndex + inputOffset)..<input.endIndex) + piece
            inputOffset = 0
        }
    }

    /// Decodes at most `maximum` bytes from the input fed so far; empty when it needs more input.
    ///
    /// - Throws: ``APIError`` (``TransportFailure/badResponse``) when the input is not valid.
    func decode(maximum: Int) throws -> Data {
        var output = Data(count: max(1, maximum))
        var produced = 0
        // zlib may hold output it could not hand over for lack of room after taking all the input:
        // it is asked again, with no input, until it makes no progress.
        while produced < maximum, hasPendingInput || (inflater != nil && !hasEnded) {
            if hasEnded {
                guard try startNextMember() else { break }
            }
            if inflater == nil { try makeInflater() }
            guard inflater != nil else { break }
            var consumed = 0
            var made = 0
            var message = [CChar](repeating: 0, count: 256)
            let code = input.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { target in
                    // No input (asking zlib for what it holds) has no base address: NULL, with a count of 0.
                    let from = source.bindMemory(to: UInt8.self).baseAddress.map { $0 + inputOffset }
                    let into = target.bindMemory(to: UInt8.self).baseAddress! + produced
                    return ccourier_inflate(
                        inflater, from, input.count - inputOffset, &consumed, into, maximum - produced, &made, &message,
                        message.count)
                }
            }
            inputOffset += consumed
            produced += made
            if code == Int32(CCOURIER_INFLATE_ERROR) { throw invalid(Self.text(message)) }
            if code == Int32(CCOURIER_INFLATE_END) {
                hasEnded = true
            } else if consumed == 0 && made == 0 {
                break
            }
        }
        if inputOffset == input.count {
            input = Data()
            inputOffset = 0
        }
        output.count = produced
        return output
    }

    /// At the end of the body: the compressed data must have ended.
    ///
    /// - Throws: ``APIError`` (``TransportFailure/connectionLost``) when it was cut short: the body
    ///   ended (the connection closed, or a chunked body ended) before its compressed data did, as a
    ///   body shorter than its `Content-Length` is a lost connection.
    func finish() throws {
        guard hasInput, !hasEnded else { return }
        throw APIError(
            .transport(.connectionLost),
            message: "the \(coding.rawValue) body ended before its compressed data did (the connection closed early)")
    }

    /// Picks zlib's window for the coding: gzip or zlib told apart by their header for gzip; for
    /// deflate, zlib's format when the first two bytes are a zlib header, else raw deflate.
    private func makeInflater() throws {
        var windowBits: Int32 = 15 + 32
        if coding == .deflate {
            guard input.count - inputOffset >= 2 else {
                // Not enough to tell yet; an empty result asks for more.
                return
            }
            let first = input[input.startIndex + inputOffset]
            let second = input[input.startIndex + inputOffset + 1]
            let isZlib = first & 0x0F == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
            windowBits = isZlib ? 15 : -15
        }
        guard let made = ccourier_inflater_make(windowBits) else {
            throw APIError(.transport(.other), message: "zlib could not make an inflater")
        }
        inflater = made
    }

    /// After a gzip member's end: whether the bytes that follow start another member (then the
    /// inflater is reset for it), else they are dropped.
    private func startNextMember() throws -> Bool {
        let left = input.count - inputOffset
        guard !discardsRest, coding == .gzip, left >= 2,
            input[input.startIndex + inputOffset] == 0x1F, input[input.startIndex + inputOffset + 1] == 0x8B
        else {
            if !discardsRest, coding == .gzip, left == 1, input[input.startIndex + inputOffset] == 0x1F { return false }
            // Not another member: the rest of the body is dropped, however it arrives.
            discardsRest = true
            inputOffset = input.count
            return false
        }
        guard ccourier_inflater_reset(inflater) == 0 else { throw invalid("zlib could not start the next member") }
        hasEnded = false
        return true
    }

    /// A C string of a buffer, up to its NUL.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func invalid(_ reason: String) -> APIError {
        APIError(.transport(.badResponse), message: "the \(coding.rawValue) body could not be decoded: \(reason)")
    }
}
