import Courier
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1, in this process: what ``TransportContract`` runs its
/// checks against, so a transport proves itself with no network and no server to start.
///
/// POSIX sockets and one thread per connection; keep-alive, `Content-Length` and chunked request
/// bodies, `Expect: 100-continue`. It answers a fixed set of routes (``LoopbackServer/Route``
/// describes them) and is meant for tests only: no TLS, no limits, no care for speed.
package final class LoopbackServer: Sendable {
    /// The server's base URL, `http://127.0.0.1:PORT`.
    package let baseURL: URL
    private let listener: Int32
    private let isStopped = Locked(false)

    /// Starts listening on a free port of 127.0.0.1.
    ///
    /// - Throws: ``ContractViolation`` when no socket can be made.
    package init() throws {
        let socket = try Socket.listen()
        listener = socket.descriptor
        baseURL = URL(string: "http://127.0.0.1:\(socket.port)")!
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "courier-loopback-accept"
        thread.start()
    }

    deinit {
        stop()
    }

    /// Stops accepting and ends the open connections (within a tenth of a second).
    package func stop() {
        isStopped.withLock { $0 = true }
    }

    private var stopped: Bool { isStopped.withLock { $0 } }

    private func acceptLoop() {
        defer { _ = close(listener) }
        while !stopped {
            guard Socket.waitReadable(listener, milliseconds: 100) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            Socket.preventSIGPIPE(connection)
            let thread = Thread { [self] in serve(Connection(descriptor: connection, isStopped: isStopped)) }
            thread.name = "courier-loopback-connection"
            thread.start()
        }
    }

    /// Answers requests on one connection until the client closes it, asks to, or the server stops.
    private func serve(_ connection: Connection) {
        defer { connection.close() }
        while let request = connection.readRequest() {
            let keepsAlive = request.header("connection")?.lowercased() != "close"
            guard Route.answer(request, on: connection) else { return }
            if !keepsAlive { return }
        }
    }
}

// MARK: Requests and the connection

extension LoopbackServer {
    /// A request as the server read it.
    struct Request {
        var method: String
        var path: String
        var query: [String: String]
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name }?.value
        }

        func integer(_ name: String, default value: Int) -> Int {
            query[name].flatMap { Int($0) } ?? value
        }
    }

    /// One accepted socket: buffered reads that give up when the server stops, whole writes.
    final class Connection: @unchecked Sendable {
        // `@unchecked Sendable`: used by the one thread that serves the connection only.
        let descriptor: Int32
        let isStopped: Locked<Bool>
        private var buffer: [UInt8] = []

        init(descriptor: Int32, isStopped: Locked<Bool>) {
            self.descriptor = descriptor
            self.isStopped = isStopped
        }

        func close() {
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
            _ = closeDescriptor(descriptor)
        }

        /// Reads more bytes into the buffer; `false` at the end of the stream or when stopped.
        private func fill() -> Bool {
            while !isStopped.withLock({ $0 }) {
                guard Socket.waitReadable(descriptor, milliseconds: 100) else { continue }
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return false }
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            return false
        }

        /// Waits until the client closes the connection (or the server stops).
        func waitForClose() {
            while fill() { buffer.removeAll() }
        }

        private func readLine() -> String? {
            while true {
                if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = Array(buffer[..<end])
                    buffer.removeFirst(end + 1)
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                guard fill() else { return nil }
            }
        }

        private func read(count: Int) -> [UInt8]? {
            while buffer.count < count {
                guard fill() else { return nil }
            }
            defer { buffer.removeFirst(count) }
            return Array(buffer[..<count])
        }

        func readRequest() -> Request? {
            guard let requestLine = readLine(), !requestLine.isEmpty else { return nil }
            let parts = requestLine.split(separator: " ")
            guard parts.count == 3 else { return nil }
            var headers: [(String, String)] = []
            while let line = readLine() {
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else { return nil }
                headers.append(
                    (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            let target = URLComponents(string: String(parts[1]))
            var request = Request(
                method: String(parts[0]), path: target?.path ?? "/", query: [:], headers: headers, body: [])
            for item in target?.queryItems ?? [] { request.query[item.name] = item.value ?? "" }
            if request.header("expect")?.lowercased() == "100-continue" {
                guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
            }
            if request.header("transfer-encoding")?.lowercased().contains("chunked") == true {
                while true {
                    guard let sizeLine = readLine(),
                        let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16)
                    else { return nil }
                    if size == 0 {
                        while let trailer = readLine(), !trailer.isEmpty {}
                        break
                    }
                    guard let data = read(count: size), readLine() != nil else { return nil }
                    request.body += data
                }
            } else if let length = request.header("content-length").flatMap({ Int($0) }), length > 0 {
                guard let data = read(count: length) else { return nil }
                request.body = data
            }
            return request
        }

        /// Writes every byte; `false` when the client went away.
        @discardableResult
        func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes {
                    send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Socket.sendFlags)
                }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }

        /// Writes a whole response with a `Content-Length` (none for a `HEAD` request's answer,
        /// which announces the length only).
        @discardableResult
        func respond(
            status: Int, headers: [(String, String)] = [], body: [UInt8] = [], isHead: Bool = false
        ) -> Bool {
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\n\r\n"
            return write(Array(head.utf8) + (isHead ? [] : body))
        }

        static func reason(_ status: Int) -> String {
            switch status {
            case 200: "OK"
            case 301: "Moved Permanently"
            case 302: "Found"
            case 303: "See Other"
            case 307: "Temporary Redirect"
            case 308: "Permanent Redirect"
            case 404: "Not Found"
            default: "Status"
            }
        }
    }
}

// MARK: POSIX

/// `close(2)`, named so it does not clash with `Connection.close()`.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

/// `listen(2)`, named so it does not clash with `Socket.listen()`.
private func listenOn(_ descriptor: Int32, backlog: Int32) -> Int32 {
    listen(descriptor, backlog)
}

enum Socket {
    #if canImport(Darwin)
        static let sendFlags: Int32 = 0
    #else
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// A listening TCP socket on 127.0.0.1 and the port it got.
    static func listen() throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ContractViolation(check: "server", "socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listenOn(descriptor, backlog: 128) == 0 else {
            let code = errno
            _ = close(descriptor)
            throw ContractViolation(check: "server", "bind/listen on 127.0.0.1 failed: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A port of 127.0.0.1 on which nothing listens: bound, then closed.
    static func closedPort() throws -> Int {
        let (descriptor, port) = try listen()
        _ = close(descriptor)
        return port
    }

    /// Whether the descriptor has something to read (or an end) within the time.
    static func waitReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    static func preventSIGPIPE(_ descriptor: Int32) {
        #if canImport(Darwin)
            var yes: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
