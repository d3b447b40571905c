import Foundation
import Testing

/// The local servers the test script starts (see `scripts/test`), found through the environment.
enum LocalServers {
    /// httpbin on 127.0.0.1, e.g. `http://127.0.0.1:40123`.
    static let httpbin: URL? = ProcessInfo.processInfo.environment["COURIER_HTTPBIN_URL"].flatMap(URL.init(string:))

    /// The upload sink (`scripts/servers/sink.py`), which counts body bytes.
    static let sink: URL? = ProcessInfo.processInfo.environment["COURIER_SINK_URL"].flatMap(URL.init(string:))

    /// The file server (`scripts/servers/files.py`): large bodies, Range, cut connections, a gzip bomb.
    static let files: URL? = ProcessInfo.processInfo.environment["COURIER_FILES_URL"].flatMap(URL.init(string:))

    /// The fault server (`scripts/servers/faults.py`): exact bytes per path, on two ports.
    static let faults: URL? = ProcessInfo.processInfo.environment["COURIER_FAULTS_URL"].flatMap(URL.init(string:))

    /// The HTTP cache server (`scripts/servers/cache.py`): ETag, Last-Modified, 304 updates,
    /// unsafe-method invalidation, stale-while-revalidate, an unknown content coding.
    static let cache: URL? = ProcessInfo.processInfo.environment["COURIER_CACHE_URL"].flatMap(URL.init(string:))

    /// The WebSocket server (`scripts/servers/websocket.py`, the `websockets` package), `ws://127.0.0.1:PORT`:
    /// routes are listed at the top of the script.
    static let webSocket: URL? = ProcessInfo.processInfo.environment["COURIER_WS_URL"].flatMap(URL.init(string:))

    /// The same WebSocket server over TLS, `wss://127.0.0.1:PORT`, its certificate signed by `webSocketAuthority`.
    static let secureWebSocket: URL? = ProcessInfo.processInfo.environment["COURIER_WSS_URL"].flatMap(
        URL.init(string:))

    /// The CA (PEM file) that signed the `secureWebSocket` server's certificate.
    static let webSocketAuthority: URL? = ProcessInfo.processInfo.environment["COURIER_WSS_CA"].map {
        URL(fileURLWithPath: $0)
    }

    /// The misbehaving WebSocket server (`scripts/servers/wsraw.py`): one broken rule per path.
    static let rawWebSocket: URL? = ProcessInfo.processInfo.environment["COURIER_WSRAW_URL"].flatMap(
        URL.init(string:))

    /// Whether the run must have the servers (the test script sets this, so CI can never pass by skipping).
    static let areRequired = ProcessInfo.processInfo.environment["COURIER_REQUIRE_SERVERS"] == "1"

    /// The same server under the name `localhost`: another origin for cross-origin redirects.
    static var httpbinOtherOrigin: URL? {
        guard let httpbin, var components = URLComponents(url: httpbin, resolvingAgainstBaseURL: false) else {
            return nil
        }
        components.host = "localhost"
        return components.url
    }
}

@Suite("Local servers")
struct LocalServerTests {
    @Test("the servers are configured whenever the test script runs")
    func configured() {
        if LocalServers.areRequired {
            #expect(LocalServers.httpbin != nil, "COURIER_HTTPBIN_URL is not set: start the tests with scripts/test")
            #expect(LocalServers.sink != nil, "COURIER_SINK_URL is not set: start the tests with scripts/test")
            #expect(LocalServers.files != nil, "COURIER_FILES_URL is not set: start the tests with scripts/test")
            #expect(LocalServers.faults != nil, "COURIER_FAULTS_URL is not set: start the tests with scripts/test")
            #expect(LocalServers.cache != nil, "COURIER_CACHE_URL is not set: start the tests with scripts/test")
            #expect(LocalServers.webSocket != nil, "COURIER_WS_URL is not set: start the tests with scripts/test")
            #expect(
                LocalServers.secureWebSocket != nil, "COURIER_WSS_URL is not set: start the tests with scripts/test")
            #expect(LocalServers.rawWebSocket != nil, "COURIER_WSRAW_URL is not set: start the tests with scripts/test")
        }
    }
}
