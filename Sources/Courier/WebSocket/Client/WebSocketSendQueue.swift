/// The sends of a ``WebSocketEngine`` not handed to the connection yet, in the order they came.
///
/// A cancelled send leaves in constant time: its number stays in `order` and is skipped when the
/// queue moves, and the numbers left behind are swept once they outnumber the waiting sends, so a
/// send stuck at the front cannot make the queue grow with every send cancelled behind it.
struct WebSocketSendQueue: Sendable {
    private var order: [UInt64] = []
    private var head = 0
    private var messages: [UInt64: WebSocketMessage] = [:]

    var isEmpty: Bool { messages.isEmpty }

    /// The numbers kept, waiting or skipped (for tests: at most a few times the waiting sends).
    var backlog: Int { order.count - head }

    mutating func append(_ id: UInt64, _ message: WebSocketMessage) {
        order.append(id)
        messages[id] = message
    }

    mutating func remove(_ id: UInt64) {
        messages[id] = nil
        if messages.isEmpty {
            order.removeAll(keepingCapacity: true)
            head = 0
        } else if order.count - head > 2 * messages.count + 1024 {
            // Sends cancelled behind one that cannot move yet: their numbers go now, so the
            // queue stays within a few times the sends still waiting.
            order = order[head...].filter { messages[$0] != nil }
            head = 0
        }
    }

    /// The first waiting send, taken out.
    mutating func popFirst() -> (id: UInt64, message: WebSocketMessage)? {
        while head < order.count {
            let id = order[head]
            head += 1
            if let message = messages.removeValue(forKey: id) {
                compact()
                return (id, message)
            }
        }
        compact()
        return nil
    }

    /// Every waiting send's number, taken out.
    mutating func removeAll() -> [UInt64] {
        let ids = order[head...].filter { messages[$0] != nil }
        order = []
        head = 0
        messages = [:]
        return ids
    }

    private mutating func compact() {
        if head == order.count {
            order.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
