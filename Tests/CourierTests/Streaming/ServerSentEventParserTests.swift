import Courier
import Foundation
import Testing

/// The event-stream interpretation of the WHATWG HTML specification, on a corpus of tricky streams,
/// each delivered whole, a byte at a time and in uneven pieces.
@Suite("Server-Sent Events parser")
struct ServerSentEventParserTests {
    /// How a stream is cut into pieces.
    enum Delivery: String, CaseIterable, CustomTestStringConvertible {
        case whole, byteAtATime, threes, sevens
        var testDescription: String { rawValue }

        func pieces(_ bytes: [UInt8]) -> [Data] {
            let size: Int
            switch self {
            case .whole: return [Data(bytes)]
            case .byteAtATime: size = 1
            case .threes: size = 3
            case .sevens: size = 7
            }
            return stride(from: 0, to: bytes.count, by: size).map { Data(bytes[$0..<min($0 + size, bytes.count)]) }
        }
    }

    private func parse(_ text: String, _ delivery: Delivery) throws -> (
        events: [ServerSentEvent], parser: ServerSentEventParser
    ) {
        try parse(Array(text.utf8), delivery)
    }

    private func parse(_ bytes: [UInt8], _ delivery: Delivery) throws -> (
        events: [ServerSentEvent], parser: ServerSentEventParser
    ) {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for piece in delivery.pieces(bytes) { try parser.parse(piece, into: &events) }
        parser.finish()
        return (events, parser)
    }

    @Test("LF, CRLF and CR line ends, and a mix of them, read the same", arguments: Delivery.allCases)
    func lineEnds(delivery: Delivery) throws {
        let expected = [
            ServerSentEvent(type: "greeting", data: "hello\nworld", id: "7"),
            ServerSentEvent(data: "second", id: "7"),
        ]
        for end in ["\n", "\r\n", "\r"] {
            let text = ["event: greeting", "id: 7", "data: hello", "data: world", "", "data: second", "", ""]
                .joined(separator: end)
            #expect(try parse(text, delivery).events == expected, "line end \(Array(end.utf8))")
        }
        let mixed = "event: greeting\r\nid: 7\rdata: hello\ndata: world\r\n\rdata: second\n\r\n"
        #expect(try parse(mixed, delivery).events == expected)
    }

    @Test("a CR at the end of one piece and an LF at the start of the next make one line end")
    func splitCRLF() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("data: a\r".utf8), into: &events)
        try parser.parse(Data("\ndata: b\r".utf8), into: &events)
        try parser.parse(Data("\n\r".utf8), into: &events)
        try parser.parse(Data("\n".utf8), into: &events)
        #expect(events == [ServerSentEvent(data: "a\nb")])
    }

    @Test("a leading BOM is skipped, even split across pieces; a second one is not", arguments: Delivery.allCases)
    func byteOrderMark(delivery: Delivery) throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let events = try parse(bom + Array("data: x\n\n".utf8), delivery).events
        #expect(events == [ServerSentEvent(data: "x")])
        // After the first BOM a second one is part of the field name: an unknown field, ignored.
        let twice = try parse(bom + bom + Array("data: x\n\ndata: y\n\n".utf8), delivery).events
        #expect(twice == [ServerSentEvent(data: "y")])
        // Bytes that start like a BOM but are not one are kept.
        let notBOM = try parse([0xEF, 0xBB] + Array("data: z\n\n".utf8), delivery).events
        #expect(notBOM.isEmpty)
        #expect(try parse(Array("data: z\n\n".utf8), delivery).events == [ServerSentEvent(data: "z")])
    }

    @Test("comments, unknown fields and case-different names are ignored", arguments: Delivery.allCases)
    func ignored(delivery: Delivery) throws {
        let text = ": comment\n:\nDATA: no\nfoo: bar\nevent2: x\ndata: yes\n: another\n\n"
        #expect(try parse(text, delivery).events == [ServerSentEvent(data: "yes")])
    }

    @Test("one leading space is removed from a value, no more; a field without a colon has an empty value")
    func values() throws {
        let text = "data:  two spaces\ndata:none\ndata\ndata:\n\n"
        #expect(try parse(text, .whole).events == [ServerSentEvent(data: " two spaces\nnone\n\n")])
        #expect(try parse("data\n\n", .whole).events == [ServerSentEvent(data: "")])
        #expect(try parse("data: a:b: c\n\n", .whole).events == [ServerSentEvent(data: "a:b: c")])
    }

    @Test("an event without data is not dispatched, and its type does not carry over")
    func noData() throws {
        let text = "event: lonely\n\nid: 3\n\ndata: next\n\n"
        #expect(try parse(text, .whole).events == [ServerSentEvent(type: "message", data: "next", id: "3")])
    }

    @Test("an empty event name means message")
    func emptyEventName() throws {
        #expect(try parse("event:\ndata: x\n\n", .whole).events == [ServerSentEvent(data: "x")])
    }

    @Test(
        "an id persists from event to event; an empty id resets it; an id with NUL, or another control a header cannot carry, is ignored"
    )
    func ids() throws {
        let text = "id: 1\ndata: a\n\ndata: b\n\nid: 2\u{0}x\ndata: c\n\nid\ndata: d\n\n"
        let (events, parser) = try parse(text, .byteAtATime)
        #expect(events.map(\.id) == ["1", "1", "1", nil])
        #expect(parser.lastEventID == "")
        let controls = "id: 1\tone\ndata: a\n\nid: 2\u{1}\ndata: b\n\nid: 3\u{7F}\ndata: c\n\nid: 4\u{B}\ndata: d\n\n"
        #expect(try parse(controls, .whole).events.map(\.id) == ["1\tone", "1\tone", "1\tone", "1\tone"])
    }

    @Test("retry takes digits only, and sets the reconnection time even without an event")
    func retry() throws {
        #expect(try parse("retry: 1500\n\n", .whole).parser.reconnectionTime == .milliseconds(1500))
        for bad in ["retry: 15x\n", "retry: -1\n", "retry: 1.5\n", "retry:\n", "retry:  15\n"] {
            #expect(try parse(bad, .whole).parser.reconnectionTime == nil, "\(bad.debugDescription)")
        }
        #expect(try parse("retry: 100\nretry: nope\n", .whole).parser.reconnectionTime == .milliseconds(100))
        #expect(try parse("retry: 99999999999999999999999\n", .whole).parser.reconnectionTime != nil)
    }

    @Test("a last event without its blank line is discarded at the end", arguments: Delivery.allCases)
    func unterminated(delivery: Delivery) throws {
        #expect(try parse("data: kept\n\ndata: lost\n", delivery).events == [ServerSentEvent(data: "kept")])
        #expect(try parse("data: kept\n\ndata: lost", delivery).events == [ServerSentEvent(data: "kept")])
    }

    @Test(
        "an id becomes the last event ID when its event is dispatched, not when read; a cut event's id is dropped",
        arguments: Delivery.allCases)
    func idAtDispatch(delivery: Delivery) throws {
        // The stream drops after event 3's id and some of its data: a reconnection must ask from 2.
        let (events, parser) = try parse("id: 1\ndata: one\n\nid: 2\ndata: two\n\nid: 3\ndata: thr", delivery)
        #expect(events.map(\.id) == ["1", "2"])
        #expect(parser.lastEventID == "2")
        // An id with a blank line and no data is dispatched (the spec sets the ID before it drops the
        // empty event).
        #expect(try parse("id: 7\n\n", delivery).parser.lastEventID == "7")
        #expect(try parse("data: x\nid: 8\n", delivery).parser.lastEventID == "")
    }

    @Test("after a drop mid-event, the next connection starts clean: no data, type or id carried over")
    func dropMidEvent() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("id: 1\ndata: a\n\nevent: special\nid: 2\ndata: partial\n".utf8), into: &events)
        parser.finish()
        try parser.parse(Data("data: b\n\n".utf8), into: &events)
        #expect(events == [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")])
        #expect(parser.lastEventID == "1")
    }

    @Test("UTF-8 split across pieces decodes whole; invalid bytes become U+FFFD", arguments: Delivery.allCases)
    func utf8(delivery: Delivery) throws {
        #expect(try parse("data: héllo wörld 🚀\n\n", delivery).events == [ServerSentEvent(data: "héllo wörld 🚀")])
        let invalid = try parse(Array("data: a".utf8) + [0xFF] + Array("b\n\n".utf8), delivery).events
        #expect(invalid == [ServerSentEvent(data: "a\u{FFFD}b")])
    }

    @Test("a line or an event over the limit fails instead of growing without bound")
    func limits() throws {
        var parser = ServerSentEventParser(maximumEventSize: 64)
        var events: [ServerSentEvent] = []
        #expect(throws: APIError.self) {
            try parser.parse(Data(("data: " + String(repeating: "x", count: 100)).utf8), into: &events)
        }
        var manyLines = ServerSentEventParser(maximumEventSize: 64)
        #expect(throws: APIError.self) {
            for _ in 0..<20 { try manyLines.parse(Data("data: 0123456789\n".utf8), into: &events) }
        }
    }

    @Test("the sequence view over a byte stream yields the events and ends with the stream")
    func sequenceView() async throws {
        let pieces = ["data: a\n", "\nda", "ta: b\n\n", "data: unterminated"].map { Data($0.utf8) }
        let stream = AsyncStream<Data> { continuation in
            for piece in pieces { continuation.yield(piece) }
            continuation.finish()
        }
        var events: [String] = []
        for try await event in stream.serverSentEvents() { events.append(event.data) }
        #expect(events == ["a", "b"])
    }
}
