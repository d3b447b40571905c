import Foundation

/// A thread-safe in-memory cache that evicts the least recently used entries when it holds more
/// than its count or cost limit. Lookups, insertions and evictions are O(1).
package final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// `@unchecked Sendable`: a node is created, read and changed only inside the cache's
    /// ``Locked`` state, and never handed out of it (lookups return its value).
    private final class Node: @unchecked Sendable {
        let key: Key
        var value: Value
        var cost: Int
        var newer: Node?
        weak var older: Node?

        init(key: Key, value: Value, cost: Int) {
            self.key = key
            self.value = value
            self.cost = cost
        }
    }

    private struct State {
        var nodes: [Key: Node] = [:]
        /// Most recently used.
        var newest: Node?
        /// Least recently used: evicted first.
        var oldest: Node?
        var totalCost = 0
    }

    /// The most entries kept.
    package let countLimit: Int
    /// The most total cost (bytes, usually) kept.
    package let costLimit: Int
    private let state = Locked(State())

    /// Creates an empty cache.
    package init(countLimit: Int, costLimit: Int) {
        self.countLimit = max(0, countLimit)
        self.costLimit = max(0, costLimit)
    }

    /// The number of entries.
    package var count: Int { state.withLock { $0.nodes.count } }

    /// The sum of the entries' costs.
    package var totalCost: Int { state.withLock { $0.totalCost } }

    /// The value for `key`, which becomes the most recently used.
    package func value(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            Self.unlink(node, in: &state)
            Self.pushNewest(node, in: &state)
            return node.value
        }
    }

    /// Stores `value`; an entry costing more than the whole limit is not stored (and replaces nothing).
    package func setValue(_ value: Value, forKey key: Key, cost: Int) {
        state.withLock { state in
            if let old = state.nodes.removeValue(forKey: key) {
                Self.unlink(old, in: &state)
                state.totalCost -= old.cost
            }
            guard cost <= costLimit, countLimit > 0 else { return }
            let node = Node(key: key, value: value, cost: max(0, cost))
            state.nodes[key] = node
            state.totalCost += node.cost
            Self.pushNewest(node, in: &state)
            while state.nodes.count > countLimit || state.totalCost > costLimit, let oldest = state.oldest {
                Self.unlink(oldest, in: &state)
                state.nodes[oldest.key] = nil
                state.totalCost -= oldest.cost
            }
        }
    }

    /// Removes the entry for `key`.
    package func removeValue(forKey key: Key) {
        state.withLock { state in
            guard let node = state.nodes.removeValue(forKey: key) else { return }
            Self.unlink(node, in: &state)
            state.totalCost -= node.cost
        }
    }

    /// Removes every entry.
    package func removeAll() {
        state.withLock { state in
            // Break the strong `newer` chain explicitly so long lists are not freed recursively.
            var node = state.oldest
            while let current = node {
                node = current.newer
                current.newer = nil
            }
            state = State()
        }
    }

    private static func unlink(_ node: Node, in state: inout State) {
        if let older = node.older { older.newer = node.newer } else { state.oldest = node.newer }
        if let newer = node.newer { newer.older = node.older } else { state.newest = node.older }
        node.newer = nil
        node.older = nil
    }

    private static func pushNewest(_ node: Node, in state: inout State) {
        node.older = state.newest
        node.newer = nil
        state.newest?.newer = node
        state.newest = node
        if state.oldest == nil { state.oldest = node }
    }
}
