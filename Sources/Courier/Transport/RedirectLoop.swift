import Foundation

/// The redirect loop every transport shares: one deadline for the whole exchange, each hop sent by
/// the transport's own `exchange`, the next request decided by ``RedirectPolicy``, and one body file
/// for every hop that sends it (a 307 or 308 sends the body again: the file opened and measured for
/// the first hop, never whatever its path names by then).
enum RedirectLoop {
    /// Sends `request`, following redirects, and returns the final response with its redirect count.
    ///
    /// - Parameter exchange: Sends one request, no redirect followed, within the deadline it is given,
    ///   with the request's body file opened (on the caller's task), when its body is a file.
    static func send(
        _ request: HTTPRequest,
        policy: RedirectPolicy,
        timeout: Duration,
        exchange: (HTTPRequest, ContinuousClock.Instant, BodyFile?) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let deadline = ContinuousClock.now + timeout
        let base = CallContext.current.hopObserver.flatMap { observer in
            observer.baseRequest(for: request).map { (observer, $0) }
        }
        let observer = base?.0
        var current = base?.1 ?? request
        var redirects = 0
        var bodyFile: BodyFile?
        while true {
            guard deadline > ContinuousClock.now else {
                throw timeoutError(current, timeout: timeout)
            }
            let outgoing = observer?.request(forHop: current) ?? current
            // A transport may be called directly, without the client's checks: validate every hop.
            try RequestValidation.validate(outgoing)
            var file: BodyFile?
            if case .file(let url) = outgoing.body {
                if bodyFile?.url != url { bodyFile = try BodyFile(opening: url, for: outgoing) }
                file = bodyFile
            }
            var response = try await exchange(outgoing, deadline, file)
            guard let next = try policy.nextRequest(after: response, to: current, redirectsSoFar: redirects) else {
                response.redirectCount = redirects
                return response
            }
            observer?.didReceiveRedirect(response, to: outgoing)
            current = next
            redirects += 1
        }
    }

    /// The error of an exchange whose whole-exchange deadline passed.
    static func timeoutError(_ request: HTTPRequest, timeout: Duration) -> APIError {
        APIError(
            .transport(.deadlineExceeded), message: "no complete response within \(DurationText.seconds(timeout))",
            request: request
        )
    }
}
