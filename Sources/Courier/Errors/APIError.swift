import Foundation

/// The one error ``APIClient`` throws, besides Swift's `CancellationError` for cancellation.
///
/// It says where the call failed (``kind``) and carries what is known at that point: the request
/// that was sent, the response that came back, the error underneath, and, for an unacceptable
/// status, the server's error body decoded as the route's ``Route/ErrorBody``.
///
/// ```swift
/// do {
///     let page = try await client.send(SearchSongs(term: "jack johnson"))
/// } catch let error as APIError {
///     switch error.kind {
///     case .unacceptableStatus(.notFound): …
///     case .transport(.timedOut): …
///     default: print(error)   // GET https://itunes.apple.com/search?term=… → 400 Bad Request: …
///     }
///     let body = error.errorBody(as: ITunesError.self)
/// }
/// ```
///
/// Its ``description`` is one sentence with the method, the URL (secret query values and passwords
/// redacted), and the cause; no secret header value ever appears in it.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// Where and why the call failed.
    public enum Kind: Sendable, Hashable {
        /// The request could not be built or is unsafe to send: a bad URL, path or method, a header
        /// with a control character, a `Transfer-Encoding` of the caller's, a body that failed to
        /// encode or a body file that cannot be sent. Nothing was sent. Also a stream read by two
        /// readers at once (the second is refused).
        case invalidRequest
        /// The exchange failed before a complete response arrived.
        case transport(TransportFailure)
        /// A complete response arrived with a status the call does not accept.
        case unacceptableStatus(HTTPStatus)
        /// The response's `Content-Type` (given here, `nil` when missing) is not one the route accepts.
        case unacceptableContentType(String?)
        /// The response arrived but could not be turned into the endpoint's `Response`.
        case decoding
        /// The authentication middleware could not get, or refresh, a credential. Nothing more was sent.
        case authentication(AuthenticationFailure)
        /// A middleware failed with an error of its own.
        case middleware
        /// The call was cancelled. Only the completion-handler API reports this; `async` calls throw
        /// `CancellationError` instead.
        case cancelled
    }

    /// Where and why the call failed.
    public let kind: Kind
    /// What went wrong, in a few words of Courier's own (no secrets).
    public let message: String
    /// The request as it was (or would have been) sent, when it was built.
    public let request: HTTPRequest?
    /// The response, when one arrived.
    public let response: HTTPResponse?
    /// The error underneath: a `URLError`, a `DecodingError`, a middleware's own error.
    public let underlyingError: (any Error)?
    private let decodedErrorBody: (any Sendable)?

    /// Creates an error. Transports and middlewares use this; callers only read it.
    public init(
        _ kind: Kind,
        message: String,
        request: HTTPRequest? = nil,
        response: HTTPResponse? = nil,
        underlyingError: (any Error)? = nil,
        errorBody: (any Sendable)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.request = request
        self.response = response
        self.underlyingError = underlyingError
        self.decodedErrorBody = errorBody
    }

    /// The response's status, when a response arrived.
    public var status: HTTPStatus? { response?.status }

    /// The server's error body decoded as `type` (the route's ``Route/ErrorBody``), or `nil`
    /// when there was none, it did not decode, or it is of another type.
    public func errorBody<Body>(as type: Body.Type = Body.self) -> Body? {
        decodedErrorBody as? Body
    }

    /// The server's error body as `type`: the body the client decoded when it is of that type,
    /// else the response's body decoded as JSON now (a route that did not declare its
    /// ``Route/ErrorBody``, an inline call); `nil` when there is no body or it does not decode.
    public func errorBody<Body: Decodable>(as type: Body.Type = Body.self) -> Body? {
        if let body = decodedErrorBody as? Body { return body }
        guard let data = response?.body, !data.isEmpty else { return nil }
        return try? JSONDecoder().decode(Body.self, from: data)
    }

    /// The server's own message, from its error body when it sent one.
    public var serverMessage: String? {
        (decodedErrorBody as? any ServerErrorBody)?.serverMessage
    }

    /// This error with the request (and response) filled in where they were missing.
    package func attaching(request: HTTPRequest?, response: HTTPResponse? = nil) -> APIError {
        APIError(
            kind, message: message, request: self.request ?? request, response: self.response ?? response,
            underlyingError: underlyingError, errorBody: decodedErrorBody
        )
    }
}
