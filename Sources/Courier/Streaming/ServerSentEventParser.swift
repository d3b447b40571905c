import Foundation

/// Reads a `text/event-stream` as the WHATWG HTML specification's event-stream interpretation does,
/// piece by piece, whatever the boundaries: a leading BOM skipped; CR, LF and CRLF line ends (a
/// CRLF split between pieces included); `:` comments; `event`, `data` (lines joined with LF), `id`
/// (ignored when it contains NUL, as the specification says, or another control character that an
/// HTTP header cannot carry back as `Last-Event-ID`; it becomes the last event ID when its event is
/// dispatched, and
/// persists from event to event), `retry` (digits only); other fields ignored; a blank line
/// dispatches the event, and an event without data is dropped. A last event not followed by a blank
/// line is discarded at the end of the stream, its `id` with it.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// var events: [ServerSentEvent] = []
/// try parser.parse(Data("data: hello\n\n".utf8), into: &events)   // [ServerSentEvent(data: "hello")]
/// ```
public struct ServerSentEventParser: Sendable {
    /// The most bytes of one line or of one event's data: a stream that never ends a line or an
    /// event fails instead of exhausting memory.
    public let maximumEventSize: Int
    /// The last event ID: the `id` of the last event dispatched (a blank line ends it), what a
    /// reconnection sends as `Last-Event-ID`. An `id` line of an event that never ended does not
    /// count: the server would skip that event on resuming, and the client never got it.
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for with its last valid `retry` field.
    public private(set) var reconnectionTime: Duration?

    private var startBytes: [UInt8] = []
    private var isPastStart = false
    private var afterCR = false
    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType: [UInt8]?
    /// The `id` read since the last dispatch, until a blank line makes it the last event ID.
    private var pendingID: String?

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Creates a parser; `maximumEventSize` is 8 MiB by default.
    public init(maximumEventSize: Int = 8 << 20) {
        self.maximumEventSize = max(1, maximumEventSize)
    }

    /// Reads the next piece of the stream, appending the events it completes.
    ///
    /// - Throws: ``APIError`` with ``TransportFailure/responseTooLarge`` when a line or an event's
    ///   data passes ``maximumEventSize``.
    public mutating func parse(_ piece: Data, into events: inout [ServerSentEvent]) throws {
        try piece.withUnsafeBytes { bytes in try parse(bytes, into: &events) }
    }

    /// Reads the next bytes of the stream, appending the events they complete.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws {
        var start = 0
        if !isPastStart {
            // A BOM may come a byte at a time: hold the first bytes until they are, or are not, one.
            while start < bytes.count, !isPastStart {
                startBytes.append(bytes[start])
                start += 1
                if startBytes == Self.byteOrderMark {
                    isPastStart = true
                } else if !Self.byteOrderMark.starts(with: startBytes) {
                    isPastStart = true
                    let held = startBytes
                    try held.withUnsafeBytes { try scan($0, from: 0, into: &events) }
                }
            }
            if isPastStart { startBytes = [] }
        }
        try scan(bytes, from: start, into: &events)
    }

    /// Ends the stream: a pending event without its blank line is discarded, with its data, type and
    /// id. The last event ID and the reconnection time stay (a reconnection carries them on).
    public mutating func finish() {
        line = []
        data = []
        eventType = nil
        pendingID = nil
        afterCR = false
        isPastStart = false
        startBytes = []
    }

    // MARK: Lines

    private mutating func scan(_ bytes: UnsafeRawBufferPointer, from first: Int, into events: inout [ServerSentEvent])
        throws
    {
        var index = first
        if afterCR, index < bytes.count {
            afterCR = false
            if bytes[index] == UInt8(ascii: "\n") { index += 1 }
        }
        var lineStart = index
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                index += 1
                continue
            }
            let segment = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<index])
            if line.isEmpty {
                try process(segment, into: &events)
            } else {
                line.append(contentsOf: segment)
                let whole = line
                line.removeAll(keepingCapacity: true)
                try whole.withUnsafeBytes { try process($0, into: &events) }
            }
            index += 1
            if byte == UInt8(ascii: "\r") {
                if index < bytes.count {
                    if bytes[index] == UInt8(ascii: "\n") { index += 1 }
                } else {
                    afterCR = true
                }
            }
            lineStart = index
        }
        if lineStart < bytes.count {
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[lineStart...]))
            if line.count > maximumEventSize { throw tooLarge("line") }
        }
    }

    // MARK: Fields

    private mutating func process(_ line: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == UInt8(ascii: ":") { return }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.count
        let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
        var valueStart = Swift.min(colon + 1, line.count)
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
        switch Field(name) {
        case .data:
            guard data.count + value.count < maximumEventSize else { throw tooLarge("event") }
            data.append(contentsOf: value)
            data.append(UInt8(ascii: "\n"))
        case .event:
            eventType = Array(value)
        case .id:
            // NUL (the specification) and the other controls a header value cannot hold (RFC 9110).
            if !value.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                pendingID = String(decoding: value, as: UTF8.self)
            }
        case .retry:
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                // More digits than a 64-bit count holds is still a (very long) wait.
                let milliseconds =
                    value.count > 15 ? Int64.max / 1_000_000 : Int64(String(decoding: value, as: UTF8.self))
                reconnectionTime = .milliseconds(milliseconds ?? 0)
            }
        case .other:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer { eventType = nil }
        // The id counts once its event ends, with data or without (WHATWG, "dispatch the event").
        if let pendingID {
            lastEventID = pendingID
            self.pendingID = nil
        }
        guard !data.isEmpty else { return }
        data.removeLast()
        let type = eventType.map { String(decoding: $0, as: UTF8.self) }
        events.append(
            ServerSentEvent(
                type: type.flatMap { $0.isEmpty ? nil : $0 } ?? "message",
                data: String(decoding: data, as: UTF8.self),
                id: lastEventID.isEmpty ? nil : lastEventID))
        data.removeAll(keepingCapacity: true)
    }

    private func tooLarge(_ what: String) -> APIError {
        APIError(
            .transport(.responseTooLarge),
            message: "the event stream sent a\(what == "event" ? "n" : "") \(what) over \(maximumEventSize) bytes")
    }

    /// The fields the specification knows.
    private enum Field {
        case data, event, id, retry, other

        init(_ name: UnsafeRawBufferPointer) {
            switch name.count {
            case 2 where name.elementsEqual("id".utf8): self = .id
            case 4 where name.elementsEqual("data".utf8): self = .data
            case 5 where name.elementsEqual("event".utf8): self = .event
            case 5 where name.elementsEqual("retry".utf8): self = .retry
            default: self = .other
            }
        }
    }
}
