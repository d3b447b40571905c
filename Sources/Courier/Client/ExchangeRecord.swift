import Foundation

/// What one call sent to the transport and got back, attempt by attempt: written by the innermost
/// step of the chain, read by the client (for ``APIResponse/metrics``) and by the metrics
/// middleware, which finds it as ``CallContext/record``.
package final class ExchangeRecord: Sendable {
    private struct State {
        var request: HTTPRequest
        var attempts = 0
        var redirects = 0
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        var status: HTTPStatus?
        var isClosed = false
    }

    /// When the call started.
    let startDate = Date()
    private let start = ContinuousClock.now
    private let state: Locked<State>

    init(_ request: HTTPRequest) {
        state = Locked(State(request: request))
    }

    /// Ends the record with its call: an exchange a middleware starts later (a background
    /// revalidation) is not this call's.
    func close() {
        state.withLock { $0.isClosed = true }
    }

    /// Whether the call the record belongs to has returned.
    var isClosed: Bool {
        state.withLock { $0.isClosed }
    }

    func willSend(_ request: HTTPRequest) {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.request = request
            state.attempts += 1
            state.bytesSent += request.body?.length ?? 0
        }
    }

    func didReceive(_ response: HTTPResponse) {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.redirects += response.redirectCount
            state.bytesReceived += Int64(response.body.count)
            state.status = response.status
        }
    }

    var lastRequest: HTTPRequest {
        state.withLock { $0.request }
    }

    var attempts: Int {
        state.withLock { $0.attempts }
    }

    /// The metrics of the call so far, ending now.
    func metrics(status: HTTPStatus?, error: (any Error)? = nil) -> RequestMetrics {
        let end = ContinuousClock.now
        return state.withLock { state in
            RequestMetrics(
                request: state.request, startDate: startDate, duration: end - start, attempts: state.attempts,
                redirects: state.redirects, bytesSent: state.bytesSent, bytesReceived: state.bytesReceived,
                status: status ?? (error == nil ? state.status : nil), error: error
            )
        }
    }
}
