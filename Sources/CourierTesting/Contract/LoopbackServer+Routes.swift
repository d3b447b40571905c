import Foundation

extension LoopbackServer {
    /// What the server answers, by path:
    ///
    /// - `/echo`: 200 with the request's body; `X-Echo-Method` the method, `X-Echo-Contract` the
    ///   request's `X-Contract` header, `X-Echo-Length` the body's length, `X-Echo-Authorization`
    ///   its `Authorization` header.
    /// - `/status/CODE`: that status, body `status CODE`.
    /// - `/headers`: 200, `X-Repeated: one` and `X-Repeated: two`, `Content-Type: text/plain`.
    /// - `/redirect/CODE?to=PATH`: that status with `Location: PATH`.
    /// - `/chain/N`: 302 to `/chain/N-1`, and 200 `done` at 0.
    /// - `/bytes/N`: N bytes (byte `i` is `i % 251`), `?chunked=1` for chunked framing.
    /// - `/delay/MS`: 200 `late` after MS milliseconds.
    /// - `/hang`: never answers; waits for the client to close.
    /// - `/truncated`: announces 1,000 bytes, sends 10, closes.
    enum Route {
        /// Answers one request; `false` when the connection must close.
        static func answer(_ request: Request, on connection: Connection) -> Bool {
            let parts = request.path.split(separator: "/").map(String.init)
            let isHead = request.method == "HEAD"
            switch (parts.first ?? "", parts.count > 1 ? Int(parts[1]) : nil) {
            case ("echo", _):
                return connection.respond(
                    status: 200,
                    headers: [
                        ("X-Echo-Method", request.method), ("X-Echo-Contract", request.header("x-contract") ?? ""),
                        ("X-Echo-Length", "\(request.body.count)"),
                        ("X-Echo-Authorization", request.header("authorization") ?? ""),
                    ],
                    body: request.body, isHead: isHead)
            case ("status", let code?):
                return connection.respond(status: code, body: Array("status \(code)".utf8), isHead: isHead)
            case ("headers", _):
                return connection.respond(
                    status: 200,
                    headers: [("X-Repeated", "one"), ("X-Repeated", "two"), ("Content-Type", "text/plain")],
                    body: Array("headers".utf8), isHead: isHead)
            case ("redirect", let code?):
                return connection.respond(status: code, headers: [("Location", request.query["to"] ?? "/echo")])
            case ("chain", let left?):
                if left <= 0 { return connection.respond(status: 200, body: Array("done".utf8)) }
                return connection.respond(status: 302, headers: [("Location", "/chain/\(left - 1)")])
            case ("bytes", let count?):
                return bytes(count, chunked: request.query["chunked"] == "1", isHead: isHead, on: connection)
            case ("delay", let milliseconds?):
                let end = Date().addingTimeInterval(Double(milliseconds) / 1000)
                while Date() < end, !connection.isStopped.withLock({ $0 }) { usleep(10_000) }
                return connection.respond(status: 200, body: Array("late".utf8))
            case ("hang", _):
                connection.waitForClose()
                return false
            case ("truncated", _):
                connection.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789".utf8))
                return false
            default:
                return connection.respond(status: 404, body: Array("no route \(request.path)".utf8))
            }
        }

        /// The pattern ``TransportContract`` checks bodies against.
        static func pattern(_ count: Int) -> [UInt8] {
            // Whole cycles appended, not a closure per byte: 8 MiB stays quick under ThreadSanitizer.
            let cycle = (0..<251).map { UInt8($0) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count + cycle.count)
            while bytes.count < count { bytes.append(contentsOf: cycle) }
            bytes.removeLast(bytes.count - count)
            return bytes
        }

        private static func bytes(_ count: Int, chunked: Bool, isHead: Bool, on connection: Connection) -> Bool {
            let body = pattern(count)
            guard chunked else {
                return connection.respond(
                    status: 200, headers: [("Content-Type", "application/octet-stream")], body: body, isHead: isHead)
            }
            guard connection.write(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) else {
                return false
            }
            var offset = 0
            while offset < body.count {
                let end = min(offset + 16 * 1024, body.count)
                let size = Array(String(end - offset, radix: 16).utf8) + [13, 10]
                guard connection.write(size + body[offset..<end] + [13, 10]) else { return false }
                offset = end
            }
            return connection.write(Array("0\r\n\r\n".utf8))
        }
    }
}
