import Foundation

/// What one call sent to the transport and got back, attempt by attempt: written by the innermost
/// step of the chain, read by the client (for ``APIResponse/metrics``) and by the metrics
/// middleware, which finds it as ``current``.
final class ExchangeRecord: Sendable {
    private struct State {
        var request: HTTPRequest
        var attempts = 0
        var redirects = 0
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        var status: HTTPStatus?
    }

    /// The record of the call the current task is making, if it was made through ``APIClient``.
    @TaskLocal static var current: ExchangeRecord?

    /// When the call started.
    let startDate = Date()
    private let start = ContinuousClock.now
    private let state: Locked<State>

    init(_ request: HTTPRequest) {
        state = Locked(State(request: request))
    }

    func willSend(_ request: HTTPRequest) {
        state.withLock { state in
            state.request = request
            state.attempts += 1
            state.bytesSent += request.body?.length ?? 0
        }
    }

    func didReceive(_ response: HTTPResponse) {
        state.withLock { state in
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
