import Foundation
import Testing

@testable import Courier

@Suite("Deadline queue")
struct DeadlineQueueTests {
    private let start = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        start + .milliseconds(milliseconds)
    }

    @Test("entries leave the line in arrival order, and expire earliest deadline first, ties in arrival order")
    func order() {
        var queue = DeadlineQueue<String>()
        queue.append("c", deadline: at(30))
        queue.append("a", deadline: at(10))
        queue.append("none", deadline: nil)
        queue.append("b1", deadline: at(20))
        queue.append("b2", deadline: at(20))

        var copy = queue
        #expect(copy.sweep(now: at(1000)) == ["a", "b1", "b2", "c"])
        #expect(copy.popFirst() == "none")
        #expect(copy.popFirst() == nil)

        #expect(queue.nextDeadline() == at(10))
        #expect(queue.popFirst() == "c")
        #expect(queue.popFirst() == "a")
        #expect(queue.nextDeadline() == at(20))
        #expect(queue.count == 3)
    }

    @Test("an entry that left one way is skipped the other way: removed, first in line, or expired")
    func lazyRemoval() {
        var queue = DeadlineQueue<String>()
        let removed = queue.append("removed", deadline: at(10))
        queue.append("first", deadline: at(20))
        queue.append("expires", deadline: at(30))
        queue.append("stays", deadline: at(40))

        #expect(queue.remove(removed) == "removed")
        #expect(queue.remove(removed) == nil)
        #expect(queue.nextDeadline() == at(20))
        #expect(queue.popFirst() == "first")
        #expect(queue.nextDeadline() == at(30))
        #expect(queue.sweep(now: at(35)) == ["expires"])
        #expect(queue.popFirst() == "stays")
        #expect(queue.sweep(now: at(1000)) == [])
        #expect(queue.nextDeadline() == nil)
        #expect(queue.isEmpty)
    }

    @Test("a deadline equal to now has expired; one a nanosecond later has not")
    func boundary() {
        var queue = DeadlineQueue<String>()
        queue.append("later", deadline: at(10) + .nanoseconds(1))
        queue.append("now", deadline: at(10))

        #expect(queue.sweep(now: at(10)) == ["now"])
        #expect(queue.nextDeadline() == at(10) + .nanoseconds(1))
        #expect(queue.sweep(now: at(10)) == [])
        #expect(queue.sweep(now: at(10) + .nanoseconds(1)) == ["later"])
    }

    @Test("removing every entry at once hands them out in arrival order and leaves the queue empty")
    func removeAll() {
        var queue = DeadlineQueue<Int>()
        for number in 0..<5 { queue.append(number, deadline: at(100 - number)) }
        queue.remove(2)
        #expect(queue.removeAll() == [0, 1, 3, 4])
        #expect(queue.isEmpty)
        #expect(queue.nextDeadline() == nil)
        #expect(queue.sweep(now: at(1000)) == [])
    }

    @Test(
        "50,000 entries with random deadlines, a third removed: each sweep returns exactly the expired ones, in order")
    func manyEntries() {
        var generator = SplitMix(seed: 29)
        var queue = DeadlineQueue<Int>()
        var deadlines: [Int: Int] = [:]
        var tickets: [Int: DeadlineQueue<Int>.Ticket] = [:]
        for number in 0..<50_000 {
            let milliseconds = Int(generator.next() % 10_000)
            deadlines[number] = milliseconds
            tickets[number] = queue.append(number, deadline: at(milliseconds))
        }
        for number in 0..<50_000 where generator.next() % 3 == 0 {
            queue.remove(tickets[number]!)
            deadlines[number] = nil
        }
        var swept: [Int] = []
        for now in stride(from: 0, through: 10_000, by: 250) {
            let expired = queue.sweep(now: at(now))
            #expect(expired.allSatisfy { deadlines[$0]! <= now })
            if let next = queue.nextDeadline() { #expect(next > at(now)) }
            swept += expired
        }
        #expect(swept.count == deadlines.count)
        // Earliest deadline first; equal deadlines in arrival order (the numbers were appended in order).
        let keys = swept.map { deadlines[$0]! * 100_000 + $0 }
        #expect(keys == keys.sorted())
        #expect(queue.isEmpty)
    }

    @Test("entries that left are dropped as the line moves: memory stays near the live entries")
    func leftoversBounded() {
        var queue = DeadlineQueue<Int>()
        // A steady line of ten: each arrival takes the place of one that left by its ticket.
        var tickets: [DeadlineQueue<Int>.Ticket] = []
        for number in 0..<100_000 {
            tickets.append(queue.append(number, deadline: at(60_000)))
            if tickets.count > 10 { queue.remove(tickets.removeFirst()) }
        }
        #expect(queue.count == 10)
        #expect(queue.storedPlaces <= 2 * (2 * 10 + 64), "\(queue.storedPlaces) places kept for 10 entries")
        // And one by one from the front, while nothing new arrives.
        var first = DeadlineQueue<Int>()
        for number in 0..<100_000 { first.append(number, deadline: at(60_000)) }
        for _ in 0..<99_990 { _ = first.popFirst() }
        #expect(first.popFirst() == 99_990)
    }
}

/// A small seeded generator, so a failure repeats.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
