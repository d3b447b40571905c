/// Helpers for asserting on the outcome of an `async` call whose success and failure both matter.
extension Result where Failure == any Error {
    /// The outcome of `body`.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

extension Result {
    /// The error, when the result is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
