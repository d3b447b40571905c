import Courier
import Foundation
import Testing

@Suite("Coalescer")
struct CoalescerTests {
    @Test("concurrent calls for one key run the work once; finished work is forgotten")
    func once() async throws {
        let coalescer = Coalescer<String, Int>()
        let runs = Counter()

        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await coalescer.value(for: "k") {
                        try await Task.sleep(for: .milliseconds(100))
                        return runs.increment()
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(values == Array(repeating: 1, count: 50))
        #expect(coalescer.count == 0)
        #expect(try await coalescer.value(for: "k") { runs.increment() } == 2)
    }

    @Test("a caller cancelled before it starts waiting leaves at once without cancelling the others")
    func earlyLeaver() async throws {
        let coalescer = Coalescer<String, String>()
        let stayer = Task {
            try await coalescer.value(for: "k") {
                try await Task.sleep(for: .milliseconds(200))
                return "done"
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        let leaver = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await coalescer.value(for: "k") { "other" }
        }

        await #expect(throws: CancellationError.self) { try await leaver.value }
        #expect(try await stayer.value == "done")
    }

    @Test("abandoned work is cancelled and a later call starts new work")
    func abandoned() async throws {
        let coalescer = Coalescer<String, String>()
        let cancelled = Counter()
        let first = Task {
            try await coalescer.value(for: "k") {
                do {
                    try await Task.sleep(for: .seconds(10))
                } catch {
                    cancelled.increment()
                    throw error
                }
                return "stale"
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        first.cancel()
        _ = try? await first.value

        let fresh = try await coalescer.value(for: "k") { "fresh" }

        #expect(fresh == "fresh")
        try await Task.sleep(for: .milliseconds(50))
        #expect(cancelled.count == 1)
    }
}
