import Foundation
import Testing

@testable import Courier

@Suite("WebSocket handshake bytes (URLSessionTransport's stream task)")
struct UpgradeHeadTests {
    private func head(_ text: String) throws -> UpgradeHead.Response? {
        try UpgradeHead.response(in: Array(text.utf8))
    }

    @Test("the request head: request line with path and query, Host first, fields as given")
    func requestHead() throws {
        let request = HTTPRequest(
            url: try #require(URL(string: "wss://example.com:8443/chat/room%201?token=a%20b")),
            headers: ["Upgrade": "websocket", "Sec-WebSocket-Protocol": "chat, superchat"])

        let text = String(decoding: UpgradeHead.request(for: request), as: UTF8.self)

        #expect(
            text == "GET /chat/room%201?token=a%20b HTTP/1.1\r\nHost: example.com:8443\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Protocol: chat, superchat\r\n\r\n")
    }

    @Test(
        "Host leaves out the scheme's default port and brackets IPv6",
        arguments: [
            ("ws://example.com/", "example.com"), ("ws://example.com:80/", "example.com"),
            ("wss://example.com:443/", "example.com"), ("ws://example.com:443/", "example.com:443"),
            ("https://127.0.0.1:9000", "127.0.0.1:9000"), ("ws://[::1]:8080/", "[::1]:8080"),
        ])
    func hostField(url: String, expected: String) throws {
        #expect(UpgradeHead.hostField(for: try #require(URL(string: url))) == expected)
    }

    @Test("an empty path is sent as /")
    func emptyPath() throws {
        let request = HTTPRequest(url: try #require(URL(string: "ws://127.0.0.1:9")))
        #expect(String(decoding: UpgradeHead.request(for: request), as: UTF8.self).hasPrefix("GET / HTTP/1.1\r\n"))
    }

    @Test("a 101 head: status, fields, and the first frame's bytes after it are left in the buffer")
    func switchingProtocols() throws {
        let bytes =
            Array(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection:  Upgrade \r\n\r\n".utf8)
            + [0x81, 0x05] + Array("first".utf8)

        let response = try #require(try UpgradeHead.response(in: bytes))

        #expect(response.status == 101)
        #expect(response.headers["connection"] == "Upgrade")
        #expect(Array(bytes[response.length...]) == [0x81, 0x05] + Array("first".utf8))
    }

    @Test("an incomplete head is waited for, whatever the piece boundaries")
    func incomplete() throws {
        let text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"
        for end in 0..<text.utf8.count {
            #expect(try UpgradeHead.response(in: Array(text.utf8.prefix(end))) == nil, "at \(end)")
        }
        #expect(try head(text)?.length == text.utf8.count)
    }

    @Test("bare LF line endings are read too")
    func bareLineFeeds() throws {
        let response = try #require(try head("HTTP/1.1 401 Unauthorized\nContent-Length: 2\n\nno"))
        #expect(response.status == 401)
        #expect(response.headers["content-length"] == "2")
        #expect(response.length == "HTTP/1.1 401 Unauthorized\nContent-Length: 2\n\n".utf8.count)
    }

    @Test(
        "a head that is not HTTP/1.x is refused",
        arguments: [
            "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 1O1 Switching\r\n\r\n", "HTTP/1.1 1011 Odd\r\n\r\n",
            "HTTP/2 101\r\n\r\n", "HTTP/1.1 101 OK\r\n folded\r\n\r\n", "HTTP/1.1 101 OK\r\n: no name\r\n\r\n",
        ])
    func malformed(text: String) {
        #expect(throws: UpgradeHead.Malformed.self) { try head(text) }
    }

    @Test("a head larger than 64 KiB is refused, ended or not")
    func oversized() {
        let long = "HTTP/1.1 101 OK\r\nX: " + String(repeating: "a", count: 70_000)
        #expect(throws: UpgradeHead.Malformed.self) { try head(long) }
        #expect(throws: UpgradeHead.Malformed.self) { try head(long + "\r\n\r\n") }
    }

    @Test("body framing: chunked wins, then one Content-Length, else until the connection closes")
    func framing() throws {
        #expect(try UpgradeHead.framing(of: ["Transfer-Encoding": "chunked", "Content-Length": "3"]) == .chunked)
        #expect(try UpgradeHead.framing(of: ["Content-Length": "12"]) == .length(12))
        #expect(try UpgradeHead.framing(of: ["Content-Length": "12, 12"]) == .length(12))
        #expect(try UpgradeHead.framing(of: [:]) == .untilClose)
        #expect(throws: UpgradeHead.Malformed.self) { try UpgradeHead.framing(of: ["Content-Length": "1, 2"]) }
        #expect(throws: UpgradeHead.Malformed.self) { try UpgradeHead.framing(of: ["Content-Length": "-1"]) }
    }
}
