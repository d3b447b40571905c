import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLSessionTransport and WebSockets")
struct URLSessionWebSocketTests {
    @Test("URLSessionTransport declares that it opens WebSockets")
    func adopts() {
        let transport: any HTTPTransport = URLSessionTransport()
        #expect(transport is any WebSocketOpeningTransport)
    }

    #if canImport(FoundationNetworking)
        @Test("on Linux a socket fails at once as unsupported, saying why and what to use instead")
        func unsupportedOnLinux() async throws {
            // Port 9 (discard) on loopback: nothing listens there, so an attempt to connect would
            // fail as cannotConnect, not as unsupported.
            let request = HTTPRequest(
                url: try #require(URL(string: "ws://127.0.0.1:9/echo")),
                headers: ["Upgrade": "websocket", "Connection": "Upgrade"])

            let error = try await #require(throws: APIError.self) {
                _ = try await URLSessionTransport().openWebSocket(request)
            }

            #expect(error.kind == .transport(.unsupported))
            #expect(error.message.contains("CurlTransport"))
            #expect(error.message.contains("libcurl"))
            #expect(error.request?.url == request.url)
        }
    #endif
}
