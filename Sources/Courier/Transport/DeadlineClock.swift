import Foundation

/// Runs actions at deadlines on a thread of its own.
///
/// Not Dispatch and not a Swift task: URLSession runs its callbacks on Dispatch's threads, and a
/// flood of them (a decompression bomb still inflating after it was refused, an endless body) keeps
/// every Dispatch timer — `Task.sleep` included — seconds late. A deadline must fire on time
/// whatever the network does.
///
/// `@unchecked Sendable`: `actions`, `heap` and `nextID` are only touched while `condition` is locked.
final class DeadlineClock: @unchecked Sendable {
    /// The one clock every exchange shares.
    static let shared = DeadlineClock()

    /// Actions by id; a cancelled action is removed here and skipped when its deadline comes up.
    private var actions: [UInt64: @Sendable () -> Void] = [:]
    /// A binary min-heap of (deadline, id), so scheduling and firing cost O(log n) with thousands
    /// of exchanges in flight.
    private var heap: [(deadline: Date, id: UInt64)] = []
    private let condition = NSCondition()
    private var nextID: UInt64 = 0

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "Courier.DeadlineClock"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Runs `action` once `delay` has passed, unless cancelled first.
    ///
    /// - Returns: What ``cancel(_:)`` takes.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        nextID += 1
        actions[nextID] = action
        heap.append((Date().addingTimeInterval(delay.timeInterval), nextID))
        siftUp(heap.count - 1)
        // Wake the clock only when this deadline is now the earliest: most are later than one
        // already waited for, and a wake-up per request costs a context switch.
        if heap[0].id == nextID { condition.signal() }
        return nextID
    }

    /// Forgets the action scheduled as `id`, if it has not run.
    func cancel(_ id: UInt64) {
        condition.lock()
        actions[id] = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            guard let first = heap.first else {
                condition.wait()
                continue
            }
            guard actions[first.id] != nil else {
                popFirst()
                continue
            }
            if first.deadline > Date() {
                _ = condition.wait(until: first.deadline)
                continue
            }
            popFirst()
            let action = actions.removeValue(forKey: first.id)
            condition.unlock()
            action?()
            condition.lock()
        }
    }

    private func popFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var index = 0
        while true {
            let left = 2 * index + 1
            let right = left + 1
            var smallest = index
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != index else { return }
            heap.swapAt(index, smallest)
            index = smallest
        }
    }

    private func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard heap[index].deadline < heap[parent].deadline else { return }
            heap.swapAt(index, parent)
            index = parent
        }
    }
}
