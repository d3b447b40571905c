import Foundation

extension CurlTransport: WebSocketOpeningTransport {
    /// Opens a WebSocket: libcurl connects on a connection of its own (TCP, the transport's proxy,
    /// TLS with its CA, pins, client certificate and minimum version, fixed addresses, Unix
    /// sockets), never pooled nor reused; Courier writes the `GET` handshake and reads the head.
    /// `ws` and `wss` URLs go as `http` and `https`.
    ///
    /// - Returns: the `101` response and the connection's channel, or any other response with its
    ///   body (at most 1 MiB) and no channel (the connection is closed).
    /// - Throws: ``APIError`` as ``send(_:)`` does; the request's ``HTTPRequest/timeout`` (else the
    ///   transport's) bounds the time until the head arrived (``TransportFailure/deadlineExceeded``);
    ///   `CancellationError` when the calling task is cancelled (the connection is closed).
    package func openWebSocket(_ request: HTTPRequest) async throws -> (
        response: HTTPResponse, channel: (any WebSocketChannel)?
    ) {
        let loop = try nextLoop(for: request)
        try Task.checkCancellation()
        var wire = request
        wire.url = CurlWebSocket.connectURL(for: request.url)
        wire.method = .get
        wire.body = nil
        let timeout = request.timeout ?? configuration.timeout
        let transfer = try CurlTransfer(
            request: wire, budget: timeout, configuration: configuration, consumer: nil)
        var handshakeURL = wire.url
        if let socketPath = transfer.socketPath,
            let url = URL(string: UnixSocketURL.wireURLString(for: wire.url, socketPath: socketPath))
        {
            handshakeURL = url
            if !wire.headers.contains(.host) { wire.headers[.host] = "localhost" }
        }
        let bytes = try CurlWebSocket.handshakeBytes(for: wire, wireURL: handshakeURL)
        let socket = CurlWebSocket(
            request: request, transfer: transfer, handshakeBytes: bytes, readSize: webSocketReadSize, owner: self)
        return try await socket.open(on: loop)
    }
}
