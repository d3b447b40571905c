import Foundation

extension APIClient {
    /// Opens a WebSocket: sends the route's opening handshake through the middlewares and, when
    /// the server answers `101 Switching Protocols` as RFC 6455 requires, returns the open socket.
    ///
    /// ```swift
    /// let socket = try await client.webSocket(.socket("chat", query: ["room": "general"]))
    /// try await socket.send(json: Hello(name: "Ada"))
    /// for try await event in socket.messages(as: ChatEvent.self) { handle(event) }
    /// ```
    ///
    /// The handshake is a `GET` on the route's URL (the client's base URL and default headers, like
    /// any call) with the handshake's headers added; it passes every middleware, so the
    /// authentication middleware sets the credential and refreshes it on a `401`, the cookie
    /// middleware sends and stores cookies, and logging shows it with secrets redacted. It counts
    /// against ``maximumConcurrentRequests`` until the `101` only, never while the socket is open.
    ///
    /// - Throws: ``APIError``: ``APIError/Kind/unacceptableStatus(_:)`` with the server's error
    ///   body for any answer but a `101` (a `401` the authentication middleware could not mend, a
    ///   `404`); ``TransportFailure/webSocketHandshakeFailed`` for a `101` RFC 6455 refuses (a
    ///   wrong `Sec-WebSocket-Accept`, a subprotocol or extension not offered);
    ///   ``TransportFailure/unsupported`` when the transport cannot open WebSockets here;
    ///   ``APIError/Kind/invalidRequest`` for a subprotocol that is not a token; the transport's
    ///   failures as for any call; or `CancellationError`.
    public func webSocket(_ route: some WebSocketRoute, options: WebSocketOptions = WebSocketOptions()) async throws
        -> WebSocket
    {
        let handshake: WebSocketHandshake
        do {
            handshake = try WebSocketHandshake(
                subprotocols: route.subprotocols, compression: route.offersCompression ? PerMessageDeflate.Offer() : nil
            )
        } catch {
            throw APIError(
                .invalidRequest, message: "the WebSocket cannot be opened: \(error.reason)",
                request: RequestBuilder.bareRequest(for: route, baseURL: base))
        }
        let handshakeRoute = WebSocketHandshakeRoute(base: route, handshake: handshake)
        let admission = try await admit(handshakeRoute)
        let (response, record, slot): (HTTPResponse, ExchangeRecord, WebSocketUpgradeSlot)
        do {
            defer { admission.slot?.leave() }
            (response, record, slot) = try await sendHandshake(handshakeRoute, timeLeft: admission.timeLeft)
        }
        let sent = record.lastRequest
        guard response.status.code == 101 else {
            slot.discard()
            throw APIError(
                .unacceptableStatus(response.status),
                message: "the server answered the WebSocket handshake with \(response.status)", request: sent,
                response: response, errorBody: try? decoder.decode(type(of: route).ErrorBody.self, from: response.body))
        }
        guard let channel = slot.take() else {
            throw WebSocketHandshakeFailure("a middleware answered 101 without a connection")
                .apiError(request: sent, response: response)
        }
        let connection: WebSocketConnection
        let agreement: WebSocketHandshake.Agreement
        do {
            agreement = try handshake.accept(status: 101, headers: response.headers)
            connection = try WebSocketConnection(
                agreement: agreement,
                configuration: .init(maximumMessageSize: options.maximumMessageSize))
        } catch {
            channel.close()
            throw error.apiError(request: sent, response: response)
        }
        let engine = WebSocketEngine(
            connection: connection, channel: channel, options: options, request: sent, response: response)
        engine.start()
        return WebSocket(
            engine: engine, request: sent, response: response, agreement: agreement, encoder: encoder,
            decoder: decoder)
    }

    /// Sends the handshake through the chain; the slot holds the channel of a `101`, and is
    /// emptied (its channel closed) when the chain fails.
    private func sendHandshake(_ route: some Route, timeLeft: Duration?) async throws
        -> (HTTPResponse, ExchangeRecord, WebSocketUpgradeSlot)
    {
        var (request, _) = try RequestBuilder.makeRequest(
            for: route, baseURL: base, defaultHeaders: headers, encoder: encoder)
        if let timeLeft { request.timeout = timeLeft }
        let record = ExchangeRecord(request)
        let slot = WebSocketUpgradeSlot()
        do {
            let response = try await runChain(request, record: record, options: CallOptions(upgrade: slot))
            return (response, record, slot)
        } catch {
            slot.discard()
            throw error
        }
    }
}
