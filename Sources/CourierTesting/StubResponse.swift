import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A canned answer for ``StubTransport``: a response, or an error, optionally after a delay.
///
/// ```swift
/// .json(SearchPage(results: []))
/// .json(#"{"errorMessage": "Invalid value"}"#, status: .badRequest)
/// .status(.noContent)
/// .failure(URLError(.timedOut))
/// .json(page).delayed(by: .milliseconds(50))
/// ```
public struct StubResponse: Sendable {
    enum Outcome: Sendable {
        case response(status: HTTPStatus, headers: HTTPHeaders, body: @Sendable () throws -> Data)
        case failure(any Error)
    }

    let outcome: Outcome
    let delay: Duration?

    init(_ outcome: Outcome, delay: Duration? = nil) {
        self.outcome = outcome
        self.delay = delay
    }

    /// A response with any status, headers and body.
    public static func response(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Data = Data())
        -> StubResponse
    {
        StubResponse(.response(status: status, headers: headers, body: { body }))
    }

    /// A JSON response encoding `value` (encoded when the stub answers; an encoding failure fails the
    /// request with that error).
    public static func json(
        _ value: some Encodable & Sendable,
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) -> StubResponse {
        StubResponse(
            .response(
                status: status, headers: headers.adding(defaults: [.contentType: "application/json"]),
                body: { try encoder.encode(value) }
            )
        )
    }

    /// A JSON response from JSON text, as a server would send it.
    public static func json(_ text: String, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> StubResponse {
        .response(
            status: status, headers: headers.adding(defaults: [.contentType: "application/json"]), body: Data(text.utf8)
        )
    }

    /// A text response, with more headers if given.
    public static func text(
        _ text: String,
        status: HTTPStatus = .ok,
        contentType: String = "text/plain; charset=utf-8",
        headers: HTTPHeaders = [:]
    ) -> StubResponse {
        .response(status: status, headers: headers.adding(defaults: [.contentType: contentType]), body: Data(text.utf8))
    }

    /// A response with a status and, optionally, a text body.
    public static func status(_ status: HTTPStatus, body: String = "", headers: HTTPHeaders = [:]) -> StubResponse {
        .response(status: status, headers: headers, body: Data(body.utf8))
    }

    /// A transport failure: a `URLError`, an `APIError`, or any error (which the client reports
    /// as `other`).
    public static func failure(_ error: any Error) -> StubResponse {
        StubResponse(.failure(error))
    }

    /// The same answer after `delay`; the wait ends early, with `CancellationError`, when the calling
    /// task is cancelled.
    public func delayed(by delay: Duration) -> StubResponse {
        StubResponse(outcome, delay: delay)
    }
}
