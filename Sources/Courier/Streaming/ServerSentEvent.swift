/// One event of a `text/event-stream` (Server-Sent Events).
///
/// ```
/// event: price        →  ServerSentEvent(type: "price", data: "{\"eur\":1.08}\n{\"usd\":1}", id: "42")
/// id: 42
/// data: {"eur":1.08}
/// data: {"usd":1}
///
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event` field, or `message` when the event named none.
    public var type: String
    /// The `data` lines, joined with LF.
    public var data: String
    /// The last event ID the stream set (`id` fields persist from event to event), or `nil` when
    /// none was set or it was reset with an empty `id`.
    public var id: String?

    /// Creates an event.
    public init(type: String = "message", data: String, id: String? = nil) {
        self.type = type
        self.data = data
        self.id = id
    }
}
