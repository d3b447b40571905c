import Courier
import Foundation
import Testing

@Suite("LRU cache")
struct LRUCacheTests {
    @Test("evicts the least recently used entry past the count limit; a read refreshes an entry")
    func countLimit() {
        let cache = LRUCache<String, Int>(countLimit: 2, costLimit: 100)
        cache.setValue(1, forKey: "a", cost: 1)
        cache.setValue(2, forKey: "b", cost: 1)
        _ = cache.value(forKey: "a")
        cache.setValue(3, forKey: "c", cost: 1)

        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "c") == 3)
        #expect(cache.count == 2)
    }

    @Test("evicts past the cost limit, replaces keep the cost right, and an oversized entry is refused")
    func costLimit() {
        let cache = LRUCache<String, String>(countLimit: 10, costLimit: 10)
        cache.setValue("x", forKey: "a", cost: 4)
        cache.setValue("y", forKey: "b", cost: 4)
        cache.setValue("z", forKey: "a", cost: 5)
        #expect(cache.totalCost == 9)
        cache.setValue("w", forKey: "c", cost: 3)
        #expect(cache.value(forKey: "b") == nil && cache.totalCost == 8)
        cache.setValue("huge", forKey: "d", cost: 11)
        #expect(cache.value(forKey: "d") == nil && cache.count == 2)
        cache.removeValue(forKey: "a")
        #expect(cache.totalCost == 3)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test("stays consistent under concurrent reads and writes")
    func concurrent() async {
        let cache = LRUCache<Int, Int>(countLimit: 50, costLimit: 1_000)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<2_000 {
                        let key = (index * 7 + worker) % 120
                        if index % 3 == 0 { cache.removeValue(forKey: key) }
                        cache.setValue(index, forKey: key, cost: index % 20)
                        _ = cache.value(forKey: (key + 1) % 120)
                    }
                }
            }
        }
        #expect(cache.count <= 50)
        #expect(cache.totalCost <= 1_000)
    }

    @Test("holds 100,000 entries and frees them without a deep recursion")
    func large() {
        let cache = LRUCache<Int, Int>(countLimit: 100_000, costLimit: .max)
        for index in 0..<100_000 { cache.setValue(index, forKey: index, cost: 1) }
        #expect(cache.count == 100_000 && cache.value(forKey: 0) == 0)
        cache.removeAll()
        #expect(cache.count == 0)
    }
}
