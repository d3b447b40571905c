extension Task where Failure == any Error {
    /// The task's value; cancelling the waiting task cancels this one (how a ``Download`` or an
    /// ``Upload`` stops when whoever waits for it goes away).
    var valueCancellingWithWaiter: Success {
        get async throws {
            try await withTaskCancellationHandler {
                try await value
            } onCancel: {
                cancel()
            }
        }
    }
}
