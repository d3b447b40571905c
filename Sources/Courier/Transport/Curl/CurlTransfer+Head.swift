import Foundation

/// A transfer's response head: read line by line as libcurl hands it over (parsed on the loop
/// thread for a streaming consumer, kept raw and parsed on the caller's thread otherwise), its
/// framing checked, and acted on once the body starts.
extension CurlTransfer {
    // MARK: Callbacks, on the loop thread

    /// One header line; `false` stops the transfer.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        movedSinceLastLook = true
        if isWaitingForBody, let loop {
            // The server answers before the body stream ended (a 413, say). libcurl 7.88 stops
            // sending then but never ends a transfer whose sending is paused: resuming it once
            // lets it finish (or ask the stream again, when it still sends).
            loop.resumeUpload(self)
        }
        headBytes += line.count
        guard headBytes <= Self.maximumHeadSize else {
            return stop(
                APIError(
                    .transport(.badResponse),
                    message: "the response head is larger than \(Self.maximumHeadSize) bytes", request: request))
        }
        let endsChallenge = endsAtOriginChallenge && endsChallengeHead(line)
        guard consumer != nil else {
            // Only the size limit and the body's capacity need the head now: look for Content-Length.
            // Room for a usual head at once, rather than growing line by line.
            if rawHead.isEmpty { rawHead.reserveCapacity(512) }
            rawHead.append(contentsOf: line)
            return noteContentLength(line) && (!endsChallenge || stop(OriginChallenge()))
        }
        do {
            try head.consume(line)
        } catch {
            return stop(APIError(.transport(.badResponse), message: error.reason, request: request))
        }
        // The head is acted on when the body starts (or the exchange ends): until then another
        // head may follow and replace it. A stream takes it as soon as it is complete (libcurl
        // suppresses a proxy's CONNECT head, and interim 1xx heads never complete one).
        if consumer?.wantsEarlyHead == true, head.isComplete, !handleHeadIfComplete() { return false }
        return !endsChallenge || stop(OriginChallenge())
    }

    /// Hands the final head to the consumer, once: when the first body byte arrives, or at the
    /// end of a body-less exchange. `false` stops the transfer.
    func handleHeadIfComplete() -> Bool {
        guard consumer != nil, !headHandled, head.isComplete, let status = head.status else { return true }
        headHandled = true
        return headArrived(status: status, headers: head.headers)
    }

    private static let contentLengthPrefix = Array("content-length:".utf8)
    private static let statusLinePrefix = Array("http/".utf8)
    private static let contentEncodingPrefix = Array("content-encoding:".utf8)

    /// Notes a status, `Content-Length` or `Content-Encoding` line, for ``bodyStarts()``; the full
    /// checks (conflicting values, interim heads) come with the parsed head.
    func noteContentLength(_ line: UnsafeRawBufferPointer) -> Bool {
        if Self.hasPrefix(line, Self.statusLinePrefix) {
            // A new head (an interim one, or the origin's after a proxy's): forget the last one's.
            announcedLength = nil
            hasLengthLine = false
            rawHeadIsEncoded = false
            return true
        }
        if Self.hasPrefix(line, Self.contentEncodingPrefix) { rawHeadIsEncoded = true }
        guard Self.hasPrefix(line, Self.contentLengthPrefix) else { return true }
        // Only one plain number of a single line sizes the body here; anything else (a second line,
        // blanks inside, a sign, an overflow) is left to the full check of the parsed head, which
        // refuses bad framing as such.
        guard !hasLengthLine else {
            announcedLength = nil
            return true
        }
        hasLengthLine = true
        announcedLength = nil
        var length = 0
        var digits = 0
        var isAfterDigits = false
        for byte in line.dropFirst(Self.contentLengthPrefix.count) {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\n")
            {
                isAfterDigits = digits > 0
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), !isAfterDigits else { return true }
            let (times, overflowed) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflowed, !overflowedAgain else { return true }
            length = sum
            digits += 1
        }
        if digits > 0 { announcedLength = length }
        return true
    }

    /// Whether the line starts with `prefix` (lowercase), ignoring case.
    static func hasPrefix(_ line: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
        guard line.count > prefix.count else { return false }
        for index in prefix.indices where line[index] | 0x20 != prefix[index] { return false }
        return true
    }

    /// With the whole raw head in: refuses an unencoded body announced over the limit, and sizes
    /// the buffer for one under it (a fresh buffer grown piece by piece costs page faults).
    func bodyStarts() -> Bool {
        bodyStarted = true
        guard consumer == nil, let length = announcedLength, !rawHeadIsEncoded else { return true }
        guard length <= configuration.maximumResponseSize else { return stop(tooLargeError()) }
        body.reserveCapacity(length)
        return true
    }

    /// Why the raw head's Content-Length cannot frame a body, if it cannot (a failed transfer's head,
    /// parsed only then).
    func rawHeadFramingProblem() -> String? {
        guard !rawHead.isEmpty else { return nil }
        var parser = ResponseHeadParser()
        rawHead.withUnsafeBytes { bytes in
            var lineStart = 0
            while lineStart < bytes.count {
                let end = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
                do throws(ResponseHeadParser.Malformed) {
                    try parser.consume(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<end]))
                } catch {
                    return
                }
                lineStart = end
            }
        }
        return ResponseFraming.lengthProblem(parser.headers)
    }

    /// The response of a delivery, its head parsed now if the loop left it raw. Called on the
    /// caller's thread.
    func response(of delivery: Delivery) throws -> HTTPResponse {
        guard let raw = delivery.rawHead else { return delivery.response }
        var parser = ResponseHeadParser()
        var malformed: ResponseHeadParser.Malformed?
        raw.withUnsafeBytes { bytes in
            var lineStart = 0
            while lineStart < bytes.count, malformed == nil {
                let end = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
                do throws(ResponseHeadParser.Malformed) {
                    try parser.consume(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<end]))
                } catch {
                    malformed = error
                }
                lineStart = end
            }
        }
        if let malformed {
            throw APIError(.transport(.badResponse), message: malformed.reason, request: request)
        }
        guard parser.isComplete, let status = parser.status else {
            throw APIError(.transport(.badResponse), message: "the reply had no complete HTTP head", request: request)
        }
        let headers = parser.headers
        if let conflict = ResponseFraming.lengthProblem(headers) {
            throw APIError(.transport(.badResponse), message: conflict, request: request)
        }
        var response = delivery.response
        response.status = HTTPStatus(code: status)
        response.headers = headers
        return response
    }

    func headArrived(status: Int, headers: HTTPHeaders) -> Bool {
        if let problem = ResponseFraming.lengthProblem(headers) {
            return stop(APIError(.transport(.badResponse), message: problem, request: request))
        }
        let announced = headers[.contentLength].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let isEncoded = headers[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
        let isRedirect = ResponseFraming.isRedirect(status: status, headers: headers)
        if let consumer, !isRedirect {
            do {
                isStreaming = try consumer.responseHeadArrived(
                    HTTPResponse(status: HTTPStatus(code: status), headers: headers, url: request.url),
                    bodyIsEncoded: leavesBodyEncoded)
            } catch {
                return stop(error)
            }
        }
        if !isStreaming, let announced, !isEncoded {
            guard announced <= configuration.maximumResponseSize else { return stop(tooLargeError()) }
            body.reserveCapacity(announced)
        }
        return true
    }
}
