import Courier
import Foundation

/// At most `limit` downloads at a time; a waiter that is cancelled leaves the line at once.
final class DownloadSlots: Sendable {
    private struct State {
        var available: Int
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Locked<State>

    init(limit: Int) {
        state = Locked(State(available: max(1, limit)))
    }

    /// Waits for a free slot.
    func acquire() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if state.available > 0 {
                        state.available -= 1
                        return .success(())
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.waiting.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot, handing it to the first waiter if there is one.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
