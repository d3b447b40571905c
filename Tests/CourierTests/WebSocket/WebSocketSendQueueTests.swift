import Foundation
import Testing

@testable import Courier

@Suite("WebSocket send queue")
struct WebSocketSendQueueTests {
    @Test("sends leave in the order they came, cancelled ones skipped")
    func order() {
        var queue = WebSocketSendQueue()
        for id in UInt64(1)...6 { queue.append(id, .text("\(id)")) }
        queue.remove(2)
        queue.remove(5)
        var taken: [UInt64] = []
        while let (id, message) = queue.popFirst() {
            #expect(message == .text("\(id)"))
            taken.append(id)
        }
        #expect(taken == [1, 3, 4, 6])
        #expect(queue.isEmpty)
        queue.append(7, .text("7"))
        #expect(queue.removeAll() == [7])
        #expect(queue.isEmpty && queue.popFirst() == nil)
    }

    @Test("a million sends cancelled behind one that cannot move keep the queue small")
    func cancelledBehindAStuckSend() {
        var queue = WebSocketSendQueue()
        queue.append(0, .text("stuck"))
        for id in UInt64(1)...1_000_000 {
            queue.append(id, .text(""))
            queue.remove(id)
        }
        // Before: a number kept for every cancelled send (8 MB here) until the queue moved.
        #expect(queue.backlog <= 2 * 1 + 1024 + 1)
        #expect(queue.popFirst()?.id == 0)
        #expect(queue.isEmpty)
    }

    @Test("waiting sends taken out all at once come in order, without the cancelled ones")
    func removeAll() {
        var queue = WebSocketSendQueue()
        for id in UInt64(1)...3000 { queue.append(id, .text("")) }
        for id in UInt64(1)...3000 where id % 3 != 0 { queue.remove(id) }
        #expect(queue.removeAll() == Array(stride(from: UInt64(3), through: 3000, by: 3)))
    }
}
