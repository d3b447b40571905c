import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The innermost step of the chain: validate, call the transport, and make its errors ``APIError``s
/// (so a network failure is never mistaken for a middleware's).
enum TransportCall {
    static func send(_ request: HTTPRequest, through transport: any HTTPTransport) async throws -> HTTPResponse {
        try RequestValidation.validate(request)
        if case .stream(let stream) = request.body, stream.hasBeenSent {
            throw HTTPBodyStream.alreadySentError(request)
        }
        if !request.mayBeSentAgain {
            throw APIError(
                .middleware,
                message: "a middleware sent a stream's request again after its head reached the caller; "
                    + "a stream's body cannot be spliced from two responses",
                request: request)
        }
        do {
            if let upgrade = CallContext.current.upgrade {
                return try await open(request, into: upgrade, on: transport)
            }
            guard let consumer = CallContext.current.consumer else { return try await transport.send(request) }
            if let streaming = transport as? any HTTPStreamingTransport {
                var response = try await streaming.send(request, streamingBodyTo: consumer)
                if response.body.isEmpty { response.streamedBodyBytes = consumer.streamedByteCount }
                return response
            }
            // A transport that cannot stream: hand the whole body over at once.
            var response = try await transport.send(request)
            var head = response
            head.body = Data()
            if try consumer.responseHeadArrived(head) {
                if !response.body.isEmpty { try consumer.receive(response.body) }
                response.streamedBodyBytes = Int64(response.body.count)
                response.body = Data()
            }
            return response
        } catch {
            throw normalise(error, request: request)
        }
    }

    /// Sends a WebSocket's opening handshake; a `101`'s connection goes into `slot`.
    private static func open(_ request: HTTPRequest, into slot: WebSocketUpgradeSlot, on transport: any HTTPTransport)
        async throws -> HTTPResponse
    {
        guard let opener = transport as? any WebSocketOpeningTransport else {
            throw APIError(
                .transport(.unsupported),
                message: "\(type(of: transport)) cannot open WebSockets on this platform", request: request)
        }
        let (response, channel) = try await opener.openWebSocket(request)
        if let channel { slot.hold(channel) }
        return response
    }

    /// `CancellationError` for anything that happened because the task was cancelled; otherwise an
    /// ``APIError`` with the request attached.
    static func normalise(_ error: any Error, request: HTTPRequest) -> any Error {
        if error is CancellationError || Task.isCancelled {
            return CancellationError()
        }
        if let error = error as? APIError {
            return error.attaching(request: request)
        }
        if let error = error as? URLError {
            if error.code == .cancelled { return CancellationError() }
            return APIError(urlError: error, request: request)
        }
        return APIError(.transport(.other), message: "\(error)", request: request, underlyingError: error)
    }
}

/// One middleware step: errors of the middleware's own become ``APIError/Kind/middleware``.
enum MiddlewareCall {
    static func intercept(
        _ request: HTTPRequest,
        with middleware: any Middleware,
        next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        do {
            return try await middleware.intercept(request, next: next)
        } catch let error as APIError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw APIError(
                .middleware, message: "the middleware \(type(of: middleware)) failed: \(error)", request: request,
                underlyingError: error
            )
        }
    }
}
