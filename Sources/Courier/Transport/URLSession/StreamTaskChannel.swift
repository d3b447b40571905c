#if !canImport(FoundationNetworking)
    import Foundation

    /// A WebSocket's connection on Apple platforms: a `URLSessionStreamTask` (TCP; TLS through
    /// `startSecureConnection()` for `wss`) that carries the opening handshake written and read here
    /// (``UpgradeHead``) and then the frames of Courier's own protocol code.
    ///
    /// Flow control: the task is asked for bytes only while a ``read()`` waits. Every read and write
    /// of the handshake is bounded by what is left of the request's timeout; after the `101` they
    /// wait as long as the WebSocket layer does. ``close()`` cancels the task, which fails a waiting
    /// read or write with `CancellationError`.
    ///
    /// Compiled on Apple platforms only: not compiled nor run by Courier's Linux CI.
    final class StreamTaskChannel: WebSocketChannel {
        /// At most this many bytes per read.
        private static let readSize = 64 * 1024

        private let task: StreamTask
        private let request: HTTPRequest
        private let state = Locked(State())

        private struct State {
            /// Bytes that came after the `101`'s head, handed out by the first read.
            var leftover: [UInt8]?
            var isClosed = false
        }

        /// `@unchecked Sendable`: URLSession's tasks may be used from any thread (their methods
        /// enqueue work on the session); this only carries the reference.
        private struct StreamTask: @unchecked Sendable {
            let task: URLSessionStreamTask
        }

        private init(task: URLSessionStreamTask, request: HTTPRequest) {
            self.task = StreamTask(task: task)
            self.request = request
        }

        /// Connects to `request`'s host, sends the handshake and reads the response head; for a
        /// `101`, returns the channel, else the response with its body (at most
        /// `maximumResponseSize` bytes) and closes the connection.
        static func open(
            _ request: HTTPRequest, session: URLSession, timeout: Duration, maximumResponseSize: Int
        ) async throws -> (response: HTTPResponse, channel: (any WebSocketChannel)?) {
            guard let host = request.url.host, !host.isEmpty else {
                throw APIError(.invalidRequest, message: "the WebSocket URL has no host", request: request)
            }
            let isSecure = UpgradeHead.isSecure(request.url)
            let task = session.streamTask(
                withHostName: host, port: request.url.port ?? UpgradeHead.defaultPort(isSecure: isSecure))
            if isSecure { task.startSecureConnection() }
            task.resume()
            let channel = StreamTaskChannel(task: task, request: request)
            let deadline = ContinuousClock.now + timeout
            do {
                return try await withTaskCancellationHandler {
                    try await channel.handshake(deadline: deadline, maximumResponseSize: maximumResponseSize)
                } onCancel: {
                    channel.close()
                }
            } catch {
                channel.close()
                throw error
            }
        }

        private func handshake(deadline: ContinuousClock.Instant, maximumResponseSize: Int) async throws -> (
            response: HTTPResponse, channel: (any WebSocketChannel)?
        ) {
            try await send(UpgradeHead.request(for: request), timeout: secondsLeft(until: deadline))
            var buffer: [UInt8] = []
            let head: UpgradeHead.Response
            while true {
                do {
                    if let parsed = try UpgradeHead.response(in: buffer) {
                        head = parsed
                        break
                    }
                } catch {
                    throw APIError(.transport(.badResponse), message: error.reason, request: request)
                }
                guard let bytes = try await receive(timeout: secondsLeft(until: deadline)) else {
                    throw APIError(
                        .transport(.connectionLost), message: "the server closed the connection before its response",
                        request: request)
                }
                buffer += bytes
            }
            let rest = Array(buffer[head.length...])
            if head.status == 101 {
                state.withLock { $0.leftover = rest }
                return (HTTPResponse(status: HTTPStatus(code: 101), headers: head.headers, url: request.url), self)
            }
            let body = try await readBody(
                after: rest, headers: head.headers, deadline: deadline, limit: maximumResponseSize)
            close()
            let response = HTTPResponse(
                status: HTTPStatus(code: head.status), headers: head.headers, body: Data(body), url: request.url)
            return (response, nil)
        }

        /// The body of a response that is not a `101`, framed as its head says.
        private func readBody(
            after start: [UInt8], headers: HTTPHeaders, deadline: ContinuousClock.Instant, limit: Int
        ) async throws -> [UInt8] {
            let framing: UpgradeHead.BodyFraming
            do {
                framing = try UpgradeHead.framing(of: headers)
            } catch {
                throw APIError(.transport(.badResponse), message: error.reason, request: request)
            }
            if case .length(let length) = framing, length > limit {
                let message = "the handshake's response body (\(length) bytes) is larger than \(limit) bytes"
                throw APIError(.transport(.responseTooLarge), message: message, request: request)
            }
            var received = start
            // A chunked body is decoded as it comes, each byte once.
            var decoder = ChunkedBodyDecoder(limit: limit)
            var decoded = 0
            while true {
                switch framing {
                case .length(let length) where received.count >= length:
                    return Array(received.prefix(length))
                case .chunked:
                    do throws(ChunkedBodyDecoder.Failure) {
                        try decoder.feed(received[decoded...])
                        decoded = received.count
                    } catch .tooLarge {
                        let message = "the handshake's response body is larger than \(limit) bytes"
                        throw APIError(.transport(.responseTooLarge), message: message, request: request)
                    } catch .malformed(let reason) {
                        throw APIError(.transport(.badResponse), message: reason, request: request)
                    }
                    if decoder.isComplete { return decoder.body }
                default:
                    break
                }
                // A chunked body's framing may be several times its size (the decoder bounds the
                // body itself), as on CurlTransport.
                guard received.count <= (framing == .chunked ? 4 * limit : limit) else {
                    let message = "the handshake's response body is larger than \(limit) bytes"
                    throw APIError(.transport(.responseTooLarge), message: message, request: request)
                }
                guard let bytes = try await receive(timeout: secondsLeft(until: deadline)) else {
                    if framing == .untilClose { return received }
                    throw APIError(
                        .transport(.connectionLost), message: "the server closed the connection inside the body",
                        request: request)
                }
                received += bytes
            }
        }

        /// What is left until `deadline`, in seconds for URLSession's timeouts (never 0, which would
        /// mean "no timeout").
        private func secondsLeft(until deadline: ContinuousClock.Instant) throws -> TimeInterval {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw APIError(
                    .transport(.timedOut), message: "the WebSocket handshake did not finish in time", request: request)
            }
            let (seconds, attoseconds) = left.components
            return max(0.001, Double(seconds) + Double(attoseconds) / 1e18)
        }

        func read() async throws -> [UInt8]? {
            if let leftover = state.withLock({ state -> [UInt8]? in
                defer { state.leftover = nil }
                return state.leftover
            }), !leftover.isEmpty {
                return leftover
            }
            return try await withTaskCancellationHandler {
                // 0: no timeout; the WebSocket layer keeps its own (close timeout, keepalive).
                try await receive(timeout: 0)
            } onCancel: {
                close()
            }
        }

        func write(_ bytes: [UInt8]) async throws {
            try await withTaskCancellationHandler {
                try await send(bytes, timeout: 0)
            } onCancel: {
                close()
            }
        }

        func close() {
            let wasClosed = state.withLock { state in
                defer { state.isClosed = true }
                return state.isClosed
            }
            guard !wasClosed else { return }
            task.task.closeWrite()
            task.task.cancel()
        }

        /// The next bytes from the task (at least one), or `nil` at the end of the stream.
        private func receive(timeout: TimeInterval) async throws -> [UInt8]? {
            let task = self.task
            while true {
                let (data, isAtEnd): (Data?, Bool)
                do {
                    (data, isAtEnd) = try await withCheckedThrowingContinuation { continuation in
                        task.task.readData(ofMinLength: 1, maxLength: Self.readSize, timeout: timeout) {
                            data, isAtEnd, error in
                            if let error {
                                continuation.resume(throwing: error)
                            } else {
                                continuation.resume(returning: (data, isAtEnd))
                            }
                        }
                    }
                } catch {
                    throw failure(error)
                }
                if let data, !data.isEmpty { return [UInt8](data) }
                if isAtEnd { return nil }
            }
        }

        private func send(_ bytes: [UInt8], timeout: TimeInterval) async throws {
            let task = self.task
            do {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    task.task.write(Data(bytes), timeout: timeout) { error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else {
                            continuation.resume()
                        }
                    }
                }
            } catch {
                throw failure(error)
            }
        }

        /// `CancellationError` once the channel was closed (or its task cancelled); else the error
        /// as an ``APIError`` (URLSession's codes read as for any request).
        private func failure(_ error: any Error) -> any Error {
            if state.withLock({ $0.isClosed }) || Task.isCancelled { return CancellationError() }
            if let error = error as? URLError { return APIError(urlError: error, request: request) }
            return APIError(
                .transport(.connectionLost), message: "the WebSocket connection failed: \(error)", request: request,
                underlyingError: error)
        }
    }
#endif
