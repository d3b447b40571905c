/// A waiting line whose entries may each have a deadline: taken out in arrival order, and the
/// ones whose deadline passed swept out earliest first, without looking at the others. What
/// ``AdmissionGate`` and a ``CurlLoop`` (transfers waiting for a slot) keep their waiters in.
///
/// Arrival order is an array read from a moving head; deadlines are a binary min-heap (equal
/// deadlines in arrival order). Removal is lazy: an entry taken out one way (first in line,
/// expired, removed by its ticket when cancelled) leaves its place in the other order behind, to
/// be skipped when it comes up, and both are compacted when such leftovers could outnumber the
/// live entries (each compaction looks at every entry, and happens only after a queue's size
/// doubled: constant time per entry, memory within about twice the live entries).
///
/// A value type with no lock: its owner keeps it confined (a loop thread) or behind its own lock.
package struct DeadlineQueue<Element> {
    /// Names an entry, to remove it before its turn.
    package typealias Ticket = UInt64

    private struct Timed {
        let deadline: ContinuousClock.Instant
        let ticket: Ticket

        /// Earlier deadline first; tickets grow with arrival, so equal deadlines keep it (nearly:
        /// a ticket made early and used late counts from when it was made).
        func isBefore(_ other: Timed) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && ticket < other.ticket)
        }
    }

    /// The live entries.
    private var entries: [Ticket: Element] = [:]
    /// Tickets in arrival order from `head` on, ended ones included.
    private var order: [Ticket] = []
    private var head = 0
    /// Entries with a deadline, earliest at the top, ended ones included.
    private var heap: [Timed] = []
    private var nextTicket: Ticket = 0

    /// An empty queue.
    package init() {}

    /// How many entries wait.
    package var count: Int { entries.count }

    /// Whether no entry waits.
    package var isEmpty: Bool { entries.isEmpty }

    /// How many places the two orders hold, left-behind ones included (for tests of the bound).
    var storedPlaces: Int { order.count - head + heap.count }

    /// Puts `element` at the end of the line, to be swept out at `deadline` (never when `nil`).
    ///
    /// - Returns: The ticket that removes it before its turn.
    @discardableResult
    package mutating func append(_ element: Element, deadline: ContinuousClock.Instant?) -> Ticket {
        let ticket = makeTicket()
        append(element, deadline: deadline, ticket: ticket)
        return ticket
    }

    /// A ticket for an entry appended later (its owner needs a name for it before it has the
    /// element); ``append(_:deadline:ticket:)`` uses it.
    package mutating func makeTicket() -> Ticket {
        defer { nextTicket += 1 }
        return nextTicket
    }

    /// Puts `element` at the end of the line under a ticket from ``makeTicket()``.
    package mutating func append(_ element: Element, deadline: ContinuousClock.Instant?, ticket: Ticket) {
        entries[ticket] = element
        order.append(ticket)
        if let deadline {
            heap.append(Timed(deadline: deadline, ticket: ticket))
            siftUp(heap.count - 1)
        }
        compactIfMostlyEnded()
    }

    /// Removes the entry (a no-op when it left already); its places in line are skipped later.
    @discardableResult
    package mutating func remove(_ ticket: Ticket) -> Element? {
        entries.removeValue(forKey: ticket)
    }

    /// Takes out the entry that came first of those still waiting.
    package mutating func popFirst() -> Element? {
        while head < order.count {
            let ticket = order[head]
            head += 1
            if let element = entries.removeValue(forKey: ticket) {
                dropHandedOutFront()
                return element
            }
        }
        order.removeAll(keepingCapacity: true)
        head = 0
        return nil
    }

    /// Takes out the entries whose deadline is `now` or earlier, earliest first.
    package mutating func sweep(now: ContinuousClock.Instant) -> [Element] {
        var expired: [Element] = []
        while let top = heap.first, top.deadline <= now {
            removeTop()
            if let element = entries.removeValue(forKey: top.ticket) { expired.append(element) }
        }
        return expired
    }

    /// The earliest deadline of an entry still waiting, or `nil` when none has one.
    package mutating func nextDeadline() -> ContinuousClock.Instant? {
        while let top = heap.first, entries[top.ticket] == nil { removeTop() }
        return heap.first?.deadline
    }

    /// Takes out every entry, in arrival order.
    package mutating func removeAll() -> [Element] {
        var all: [Element] = []
        all.reserveCapacity(entries.count)
        while let element = popFirst() { all.append(element) }
        heap.removeAll(keepingCapacity: true)
        return all
    }

    // MARK: Lazy removal

    /// Drops the handed-out front of `order` once it is most of the array.
    private mutating func dropHandedOutFront() {
        guard head > 1024, head * 2 > order.count else { return }
        order.removeFirst(head)
        head = 0
    }

    /// Keeps only live tickets in `order` and `heap` when ended ones could be most of either.
    private mutating func compactIfMostlyEnded() {
        let limit = 2 * entries.count + 64
        if order.count - head > limit {
            order = order[head...].filter { entries[$0] != nil }
            head = 0
        }
        if heap.count > limit {
            heap.removeAll { entries[$0.ticket] == nil }
            // Bottom-up: any order becomes a heap in linear time.
            var index = heap.count / 2
            while index > 0 {
                index -= 1
                siftDown(index)
            }
        }
    }

    // MARK: The heap

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].isBefore(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let earlier = right < heap.count && heap[right].isBefore(heap[left]) ? right : left
            guard heap[earlier].isBefore(heap[parent]) else { return }
            heap.swapAt(parent, earlier)
            parent = earlier
        }
    }
}

extension DeadlineQueue: Sendable where Element: Sendable {}
