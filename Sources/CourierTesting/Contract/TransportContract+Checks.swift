import Courier
import Foundation

extension TransportContract {
    /// One check's server, transport and helpers.
    struct Context: Sendable {
        let check: Check
        let base: URL
        let transport: any HTTPTransport
        let makeTransport: @Sendable (Settings) -> any HTTPTransport

        // MARK: Helpers

        func violation(_ message: String) -> ContractViolation {
            ContractViolation(check: check.rawValue, message)
        }

        func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw violation(message()) }
        }

        func url(_ path: String) -> URL {
            URL(string: path, relativeTo: base)!.absoluteURL
        }

        func request(
            _ path: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil,
            timeout: Duration? = .seconds(40)
        ) -> HTTPRequest {
            HTTPRequest(
                method: method, url: url(path), headers: headers, body: body.map { .data($0) }, timeout: timeout)
        }

        /// Sends the request, which must succeed.
        func send(_ request: HTTPRequest, on transport: (any HTTPTransport)? = nil) async throws -> HTTPResponse {
            do {
                return try await (transport ?? self.transport).send(request)
            } catch {
                throw violation("\(request.method) \(request.url.path) failed: \(error)")
            }
        }

        /// Sends the request, which must fail as one of `failures`.
        func expectFailure(
            _ request: HTTPRequest, _ failures: [TransportFailure], on transport: (any HTTPTransport)? = nil
        ) async throws {
            do {
                let response = try await (transport ?? self.transport).send(request)
                throw violation("\(request.url.path) answered \(response.status), expected a failure: \(failures)")
            } catch let error as APIError {
                guard case .transport(let failure) = error.kind, failures.contains(failure) else {
                    throw violation("\(request.url.path) failed as \(error.kind), expected \(failures): \(error)")
                }
            } catch let violation as ContractViolation {
                throw violation
            } catch {
                throw violation("\(request.url.path) threw \(error), expected an APIError \(failures)")
            }
        }

        // MARK: The checks

        func statusHeadersAndBody() async throws {
            let response = try await send(request("/headers"))
            try expect(response.status.code == 200, "/headers answered \(response.status)")
            // Kept as two fields, or joined in order as RFC 9110 §5.3 allows (Foundation joins them).
            let repeated = response.headers.values(for: "X-Repeated")
            try expect(
                repeated == ["one", "two"] || repeated == ["one, two"], "a repeated header came back as \(repeated)")
            try expect(response.headers[.contentType] == "text/plain", "Content-Type: \(response.headers)")
            try expect(response.body == Data("headers".utf8), "body: \(response.body.count) bytes")
            for code in [201, 204, 404, 500, 503] {
                let status = try await send(request("/status/\(code)"))
                try expect(status.status.code == code, "/status/\(code) answered \(status.status)")
                if code != 204 {
                    try expect(status.body == Data("status \(code)".utf8), "the \(code)'s body did not come back")
                }
            }
        }

        func methodsAndBodies() async throws {
            let withBodies: [HTTPMethod] = [.post, .put, .patch]
            for method in [HTTPMethod.get, .delete] + withBodies {
                let body = withBodies.contains(method) ? Data("body of \(method)".utf8) : nil
                let response = try await send(
                    request("/echo", method: method, headers: ["X-Contract": "header of \(method)"], body: body))
                try expect(response.status.code == 200, "\(method) /echo answered \(response.status)")
                try expect(
                    response.headers["X-Echo-Method"] == method.rawValue,
                    "\(method) reached the server as \(response.headers["X-Echo-Method"] ?? "nothing")")
                try expect(
                    response.headers["X-Echo-Contract"] == "header of \(method)",
                    "\(method)'s header reached the server as \(response.headers["X-Echo-Contract"] ?? "nothing")")
                try expect(
                    response.body == (body ?? Data()), "\(method)'s body came back as \(response.body.count) bytes")
            }
            let head = try await send(request("/echo", method: .head))
            try expect(head.headers["X-Echo-Method"] == "HEAD", "HEAD reached the server as \(head.headers)")
            try expect(head.body.isEmpty, "a HEAD response had a body of \(head.body.count) bytes")
            let empty = try await send(request("/echo", method: .post, body: Data()))
            try expect(empty.headers["X-Echo-Length"] == "0", "an empty POST body arrived as \(empty.headers)")

            // A body file is read from disk as it is sent, whole.
            let fileBody = Data(LoopbackServer.Route.pattern(300_001))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
            try fileBody.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            var upload = request("/echo", method: .put)
            upload.body = .file(file)
            let echoed = try await send(upload)
            try expect(echoed.body == fileBody, "a 300,001-byte body file arrived as \(echoed.body.count) other bytes")
        }

        func redirects() async throws {
            let chain = try await send(request("/chain/3"))
            try expect(chain.status.code == 200 && chain.body == Data("done".utf8), "/chain/3 ended with \(chain)")
            try expect(chain.redirectCount == 3, "3 redirects counted as \(chain.redirectCount)")
            try expect(chain.url?.path == "/chain/0", "the final URL was \(chain.url?.absoluteString ?? "nil")")

            let body = Data("payload".utf8)
            let seeOther = try await send(request("/redirect/303?to=/echo", method: .post, body: body))
            try expect(
                seeOther.headers["X-Echo-Method"] == "GET" && seeOther.body.isEmpty,
                "after a 303 the POST went on as \(seeOther.headers["X-Echo-Method"] ?? "nothing") with \(seeOther.body.count) bytes"
            )
            let temporary = try await send(request("/redirect/307?to=/echo", method: .post, body: body))
            try expect(
                temporary.headers["X-Echo-Method"] == "POST" && temporary.body == body,
                "after a 307 the POST went on as \(temporary.headers["X-Echo-Method"] ?? "nothing") with \(temporary.body.count) bytes"
            )

            // The caller's credentials go to the origin they were meant for, never across origins
            // (127.0.0.1 and localhost are two origins of this one server).
            let secret: HTTPHeaders = [.authorization: "Bearer contract-secret"]
            let sameOrigin = try await send(request("/redirect/302?to=/echo", headers: secret))
            try expect(
                sameOrigin.headers["X-Echo-Authorization"] == "Bearer contract-secret",
                "a same-origin redirect lost the Authorization header")
            let port = base.port.map { ":\($0)" } ?? ""
            let crossOrigin = try await send(
                request("/redirect/302?to=http://localhost\(port)/echo", headers: secret))
            try expect(
                crossOrigin.status.code == 200 && crossOrigin.headers["X-Echo-Authorization"] == "",
                "a redirect to another origin carried the Authorization header (or failed: \(crossOrigin.status))")

            let limited = makeTransport(Settings(redirects: RedirectPolicy(maximumRedirects: 2)))
            try await expectFailure(request("/chain/3"), [.tooManyRedirects], on: limited)

            let never = makeTransport(Settings(redirects: .never))
            let unfollowed = try await send(request("/redirect/302?to=/echo"), on: never)
            try expect(unfollowed.status.code == 302, "with RedirectPolicy.never a 302 became \(unfollowed.status)")
            try expect(unfollowed.headers[.location] == "/echo", "the 302's Location: \(unfollowed.headers)")
        }

        func timeouts() async throws {
            // A transport that ignored the deadline would get the answer, at 30 s.
            try await expectFailure(request("/delay/30000", timeout: .milliseconds(500)), [.deadlineExceeded])
            var idle = request("/hang", timeout: .seconds(40))
            idle.idleTimeout = .seconds(1)
            try await expectFailure(idle, [.timedOut])
            let after = try await send(request("/status/200"))
            try expect(after.status.code == 200, "after two timeouts the transport answered \(after.status)")
        }

        func cancellation() async throws {
            let transport = self.transport
            let hanging = request("/hang", timeout: .seconds(40))
            let call = Task { try await transport.send(hanging) }
            try await Task.sleep(for: .milliseconds(300))
            call.cancel()
            let result = await call.result
            switch result {
            case .success(let response):
                throw violation("a cancelled exchange answered \(response.status)")
            case .failure(let error):
                try expect(error is CancellationError, "a cancelled exchange threw \(error), not CancellationError")
            }
            let cancelledEarly = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await transport.send(hanging)
            }
            switch await cancelledEarly.result {
            case .success(let response):
                throw violation("an exchange cancelled before it began answered \(response.status)")
            case .failure(let error):
                try expect(error is CancellationError, "an exchange cancelled before it began threw \(error)")
            }
            let after = try await send(request("/status/200"))
            try expect(after.status.code == 200, "after cancellations the transport answered \(after.status)")
        }

        func largeBodies() async throws {
            let size = 8 << 20
            let expected = Data(LoopbackServer.Route.pattern(size))
            for path in ["/bytes/\(size)", "/bytes/\(size)?chunked=1"] {
                let response = try await send(request(path))
                try expect(response.body.count == size, "\(path) arrived as \(response.body.count) bytes")
                try expect(response.body == expected, "\(path) arrived with other bytes than were sent")
            }
            let upload = Data(LoopbackServer.Route.pattern((4 << 20) + 7).dropFirst(7))
            let echoed = try await send(request("/echo", method: .post, body: upload))
            try expect(echoed.body == upload, "a 4 MiB body came back as \(echoed.body.count) other bytes")
        }

        func streaming() async throws {
            guard let streaming = transport as? any HTTPStreamingTransport else { return }
            let size = 2 << 20
            let consumer = CollectingConsumer()
            let response: HTTPResponse
            do {
                response = try await streaming.send(
                    request("/bytes/\(size)?chunked=1"), streamingBodyTo: consumer)
            } catch {
                throw violation("a streamed exchange failed: \(error)")
            }
            try expect(response.status.code == 200, "a streamed exchange answered \(response.status)")
            let collected = consumer.collected
            try expect(collected.count == size, "the consumer got \(collected.count) of \(size) bytes")
            try expect(collected == Data(LoopbackServer.Route.pattern(size)), "the consumer got other bytes")
        }

        func connectionFailures() async throws {
            let port = try Socket.closedPort()
            let refused = HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/echo")!, timeout: .seconds(40))
            try await expectFailure(refused, [.cannotConnect])
            try await expectFailure(request("/truncated"), [.connectionLost, .badResponse])
        }

        func concurrentExchanges() async throws {
            let transport = self.transport
            let requests = (0..<32).map { request("/bytes/\(1000 + $0 * 37)") }
            let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                for (index, request) in requests.enumerated() {
                    group.addTask { (index, try await transport.send(request).body) }
                }
                return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<32 {
                let expected = Data(LoopbackServer.Route.pattern(1000 + index * 37))
                try expect(bodies[index] == expected, "exchange \(index) got \(bodies[index]?.count ?? 0) other bytes")
            }
        }
    }

    /// Keeps every piece of a streamed body.
    final class CollectingConsumer: ResponseBodyConsumer, Sendable {
        private let pieces = Locked(Data())

        var collected: Data { pieces.withLock { $0 } }

        func responseHeadArrived(_ head: HTTPResponse) throws -> Bool { true }

        func receive(_ piece: Data) throws {
            pieces.withLock { $0.append(piece) }
        }
    }
}
