import Courier
import Foundation
import Testing

/// `http+unix://` URLs on real Unix domain sockets (`scripts/servers/unix.py`, which also listens on
/// a 127.0.0.1 port): CurlTransport reaches the socket, reuses a connection per socket and never
/// across sockets, counts its connection limit per socket, and keeps the redirect and credential
/// rules by origin (the socket path); URLSessionTransport refuses before any I/O.
@Suite("Unix domain sockets (http+unix URLs)", .timeLimit(.minutes(2)))
struct UnixSocketTests {
    struct Echo: Decodable {
        let method: String
        let path: String
        let query: String
        let headers: [String: String]
        let server: String
        let listener: String
        let connection: Int
        let requestOnConnection: Int
    }

    private struct Stats: Decodable {
        let unix: Int
    }

    /// A unix.py server on a socket in a folder of its own, removed with it.
    final class SocketServer: Sendable {
        let folder: URL
        let path: String
        let server: ScriptServer

        init(name: String = "unix", file: String = "s.sock", folder: URL? = nil) async throws {
            let folder =
                folder
                ?? URL(fileURLWithPath: "/tmp/courier-unix-\(UUID().uuidString.prefix(8))", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.folder = folder
            path = folder.appendingPathComponent(file).path
            server = try await ScriptServer.start(
                script: "unix.py", arguments: ["--socket", path, "--name", name], lifetime: 120)
        }

        /// `http+unix://<the path, percent-encoded>`.
        var url: URL { UnixSocketTests.socketURL(path) }

        /// The connections the socket accepted so far, asked over TCP (which adds none to the socket's).
        func connections() async throws -> Int {
            try await APIClient(baseURL: server.url, transport: CurlTransport()).send(.get("stats", as: Stats.self))
                .unix
        }

        deinit {
            server.terminate()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func socketURL(_ path: String) -> URL {
        URL(string: "http+unix://" + path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)!
    }

    static let secret: HTTPHeaders = [.authorization: "Bearer sentinel-unix-token"]

    @Test("a GET reaches the socket with its base path, path and query, Host: localhost")
    func get() async throws {
        let socket = try await SocketServer()
        let client = APIClient(baseURL: socket.url.appending(path: "v1.43"), transport: CurlTransport())

        let echo = try await client.send(.get("containers/json", query: ["all": "1"], as: Echo.self))

        #expect(echo.listener == "unix")
        #expect(echo.path == "/v1.43/containers/json")
        #expect(echo.query == "all=1")
        #expect(echo.headers["Host"] == "localhost")
    }

    @Test("a Host header the caller sets is the one sent")
    func callersHost() async throws {
        let socket = try await SocketServer()
        let client = APIClient(baseURL: socket.url, transport: CurlTransport())

        let echo = try await client.send(.get("anything", headers: ["Host": "docker.internal"], as: Echo.self))

        #expect(echo.headers["Host"] == "docker.internal")
    }

    @Test("requests one after another reuse one connection to the socket, counted by the server")
    func reuse() async throws {
        let socket = try await SocketServer()
        let client = APIClient(baseURL: socket.url, transport: CurlTransport())

        var echoes: [Echo] = []
        for _ in 0..<5 { echoes.append(try await client.send(.get("anything", as: Echo.self))) }

        #expect(echoes.map(\.requestOnConnection) == [1, 2, 3, 4, 5])
        #expect(Set(echoes.map(\.connection)).count == 1)
        #expect(try await socket.connections() == 1)
    }

    @Test("two sockets never share a connection: each request reaches the socket it names")
    func twoSockets() async throws {
        let first = try await SocketServer(name: "first")
        let second = try await SocketServer(name: "second")
        let transport = CurlTransport()
        let clients = [
            ("first", APIClient(baseURL: first.url, transport: transport)),
            ("second", APIClient(baseURL: second.url, transport: transport)),
        ]

        for _ in 0..<4 {
            for (name, client) in clients {
                let echo = try await client.send(.get("anything", as: Echo.self))
                #expect(echo.server == name && echo.listener == "unix", "asked \(name), answered by \(echo.server)")
            }
        }

        #expect(try await first.connections() == 1)
        #expect(try await second.connections() == 1)
    }

    @Test("the per-host connection limit counts per socket: a busy socket does not hold up another")
    func limitPerSocket() async throws {
        let busy = try await SocketServer(name: "busy")
        let idle = try await SocketServer(name: "idle")
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))
        let finished = Locked(false)
        let slow = Task {
            _ = try? await APIClient(baseURL: busy.url, transport: transport).send(.get("delay/30", as: Data.self))
            finished.withLock { $0 = true }
        }
        defer { slow.cancel() }
        // The slow request holds the busy socket's one connection before the other request starts.
        try await eventuallyConnected(busy)

        let echo = try await APIClient(baseURL: idle.url, transport: transport).send(.get("anything", as: Echo.self))

        #expect(echo.server == "idle")
        #expect(!finished.withLock { $0 }, "the idle socket's request waited for the busy socket's")
    }

    private func eventuallyConnected(_ socket: SocketServer) async throws {
        for _ in 0..<450 where try await socket.connections() == 0 {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try await socket.connections() == 1)
    }

    @Test("a relative redirect stays on the socket, with Authorization (same origin)")
    func relativeRedirect() async throws {
        let socket = try await SocketServer()
        let client = APIClient(baseURL: socket.url, transport: CurlTransport())

        let echo = try await client.send(
            .get("redirect-to", query: ["url": "/anything/moved"], headers: Self.secret, as: Echo.self))

        #expect(echo.listener == "unix")
        #expect(echo.path == "/anything/moved")
        #expect(echo.headers["Authorization"] == "Bearer sentinel-unix-token")
    }

    @Test("a redirect from the socket to http://localhost leaves the origin: Authorization stripped")
    func redirectToTheNetwork() async throws {
        let socket = try await SocketServer()
        let client = APIClient(baseURL: socket.url, transport: CurlTransport())
        let port = try #require(socket.server.url.port)

        let echo = try await client.send(
            .get(
                "redirect-to", query: ["url": "http://localhost:\(port)/anything"], headers: Self.secret,
                as: Echo.self))

        #expect(echo.listener == "tcp")
        #expect(echo.headers["Authorization"] == nil)
    }

    @Test("a redirect to another socket whose path differs only in case leaves the origin")
    func caseSensitivePaths() async throws {
        let upper = try await SocketServer(name: "upper", file: "A.sock")
        let lower = try await SocketServer(name: "lower", file: "a.sock", folder: upper.folder)
        let client = APIClient(baseURL: upper.url, transport: CurlTransport())

        let echo = try await client.send(
            .get(
                "redirect-to", query: ["url": lower.url.appending(path: "anything").absoluteString],
                headers: Self.secret, as: Echo.self))

        #expect(echo.server == "lower")
        #expect(echo.headers["Authorization"] == nil)
    }

    @Test("a server on the network cannot redirect to a Unix socket", arguments: TransportKind.defaults)
    func networkToSocketRefused(transport: TransportKind) async throws {
        let socket = try await SocketServer()
        let client = transport.client(socket.server.url)

        let error = await #expect(throws: APIError.self) {
            try await client.send(
                .get(
                    "redirect-to", query: ["url": socket.url.appending(path: "anything").absoluteString],
                    as: Data.self))
        }

        #expect(error?.kind == .transport(.invalidRedirect), "\(String(describing: error))")
        #expect(try await socket.connections() == 0)
    }

    @Test("a socket that does not exist, or a file that is not a socket: cannotConnect naming the path")
    func unreachable() async throws {
        let folder = URL(fileURLWithPath: "/tmp/courier-unix-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.sock").path
        let file = folder.appendingPathComponent("file.sock").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))

        for (path, words) in [(missing, "No such file"), (file, "is not a Unix socket")] {
            let client = APIClient(baseURL: Self.socketURL(path), transport: CurlTransport())
            let error = await #expect(throws: APIError.self) { try await client.send(.get("anything", as: Data.self)) }
            #expect(error?.kind == .transport(.cannotConnect), "\(String(describing: error))")
            #expect(error?.message.contains(path) == true, "\(String(describing: error?.message))")
            #expect(error?.message.contains(words) == true, "\(String(describing: error?.message))")
        }
    }

    @Test("URLSessionTransport refuses an http+unix URL before any I/O")
    func urlSessionRefuses() async throws {
        let socket = try await SocketServer()
        let client = APIClient(baseURL: socket.url, transport: URLSessionTransport())

        let error = await #expect(throws: APIError.self) { try await client.send(.get("anything", as: Data.self)) }

        #expect(error?.kind == .invalidRequest, "\(String(describing: error))")
        #expect(error?.message.contains("Unix socket") == true)
        #expect(try await socket.connections() == 0)
    }
}
