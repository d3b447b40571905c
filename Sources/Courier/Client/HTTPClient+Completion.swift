import Dispatch

/// A call started with a completion handler; cancel it to stop the exchange.
public struct RequestHandle: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Cancels the call. Its completion handler is then called with ``APIError/Kind/cancelled``,
    /// unless the call had already finished.
    public func cancel() {
        task.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }
}

extension HTTPClient {
    /// Sends the endpoint's request and calls `completion` on `queue` with the decoded response or
    /// the error: a bridge for code that does not use `async`/`await` yet.
    ///
    /// ```swift
    /// let handle = client.send(SearchSongs(term: "jack johnson"), queue: .main) { result in
    ///     switch result {
    ///     case .success(let page): presenter.show(page.results)
    ///     case .failure(let error): presenter.show(error.description)
    ///     }
    /// }
    /// // later, if the screen goes away:
    /// handle.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: The call to send.
    ///   - queue: Where `completion` runs; the main queue by default. (On Linux the main queue only
    ///     runs while the main thread runs `dispatchMain()` or a run loop; a command-line program
    ///     that does neither should pass another queue.)
    ///   - completion: Called exactly once. Cancellation arrives as ``APIError/Kind/cancelled``.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func send<E: Endpoint>(
        _ endpoint: E,
        queue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<E.Response, APIError>) -> Void
    ) -> RequestHandle {
        let task = Task {
            let result: Result<E.Response, APIError>
            do {
                result = .success(try await send(endpoint))
            } catch let error as APIError {
                result = .failure(error)
            } catch is CancellationError {
                result = .failure(APIError(.cancelled, message: "the call was cancelled"))
            } catch {
                result = .failure(APIError(.middleware, message: "\(error)", underlyingError: error))
            }
            queue.async { completion(result) }
        }
        return RequestHandle(task: task)
    }
}
