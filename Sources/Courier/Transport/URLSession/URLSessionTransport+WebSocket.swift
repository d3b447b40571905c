import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSockets over URLSessionTransport.
///
/// On Apple platforms the socket is a `URLSessionStreamTask` (TCP, and TLS for `wss` with the
/// system's trust evaluation and the transport's client certificate), and Courier writes the
/// opening handshake, reads the response head and does the framing, masking and permessage-deflate
/// itself (``StreamTaskChannel``): the same protocol code, limits and compression as on
/// ``CurlTransport``. `URLSessionWebSocketTask` is not used: it hides the handshake's response
/// (status, headers and body of a refused handshake), negotiates no compression and frames messages
/// its own way.
///
/// On Linux, FoundationNetworking's `URLSessionWebSocketTask` needs a libcurl built with WebSocket
/// support; Debian 12's 7.88 has none (its task fails with "WebSockets not supported by libcurl"),
/// and FoundationNetworking has no stream task to carry Courier's own framing. So on Linux a socket
/// fails at once with ``TransportFailure/unsupported``: use ``CurlTransport``.
extension URLSessionTransport: WebSocketOpeningTransport {
    /// Opens a WebSocket: on Apple platforms over a stream task; on Linux, fails with
    /// ``TransportFailure/unsupported`` before any I/O.
    package func openWebSocket(_ request: HTTPRequest) async throws -> (
        response: HTTPResponse, channel: (any WebSocketChannel)?
    ) {
        #if canImport(FoundationNetworking)
            throw APIError(
                .transport(.unsupported),
                message: "URLSessionTransport cannot open WebSockets on Linux: FoundationNetworking's"
                    + " URLSessionWebSocketTask needs a libcurl built with WebSocket support (Debian 12's"
                    + " libcurl 7.88 has none) and it has no stream task for Courier's own framing;"
                    + " use CurlTransport",
                request: request)
        #else
            // A refused handshake's body is an error page: 1 MiB at most (its chunked decoding
            // starts over with each piece, which stays cheap at that size).
            try await StreamTaskChannel.open(
                request, session: session, timeout: request.timeout ?? configuration.timeout,
                maximumResponseSize: min(configuration.maximumResponseSize, 1 << 20))
        #endif
    }
}
