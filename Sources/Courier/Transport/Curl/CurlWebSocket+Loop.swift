import CCourierCurl
import Foundation

/// The loop thread's side of a WebSocket: connecting, the handshake, then the channel's bytes.
extension CurlWebSocket {
    /// Starts connecting on a multi handle of the socket's own; `false` when that failed (the
    /// socket has ended then).
    func begin(configuration: CurlTransport.Configuration, resolveList: OpaquePointer?) -> Bool {
        guard let multi = ccurl_multi_init() else {
            end(
                APIError(.transport(.other), message: "libcurl could not make a handle", request: request),
                closing: false)
            return false
        }
        self.multi = multi
        guard let easy = ccurl_easy_init() else {
            end(
                APIError(.transport(.other), message: "libcurl could not make a handle", request: request),
                closing: false)
            tearDown()
            return false
        }
        self.easy = easy
        transfer.easy = easy
        do {
            if let refused = CurlTransfer.prepare(
                easy, errorBuffer: errorBuffer, configuration: configuration, resolveList: resolveList)
            {
                throw APIError(
                    .transport(.other), message: "libcurl refused this transport's setting of \(refused)",
                    request: request)
            }
            try transfer.configure(easy, errorBuffer: errorBuffer)
            var failed = false
            func set(_ option: Int, _ value: Int) {
                if ccurl_easy_setopt_long(easy, Int32(option), value) != 0 { failed = true }
            }
            // HTTP/1.1 only (the ALPN offer too): the Upgrade handshake is an HTTP/1.1 exchange.
            set(CCURLOPT_HTTP_VERSION, CCURL_HTTP_VERSION_1_1)
            // libcurl connects (TCP, proxy, TLS) and hands the connection over; a connection of
            // its own, in a multi handle of its own: nothing else ever reuses, prunes or evicts it.
            set(CCURLOPT_CONNECT_ONLY, 1)
            set(CCURLOPT_FRESH_CONNECT, 1)
            // Through an HTTP proxy, a tunnel for ws:// too: the proxy must not see (nor forward)
            // the handshake as a request of its own. SOCKS proxies ignore it.
            set(CCURLOPT_HTTPPROXYTUNNEL, 1)
            // FORBID_REUSE would close the connection as soon as libcurl is done connecting.
            set(CCURLOPT_FORBID_REUSE, 0)
            if failed {
                throw APIError(
                    .transport(.other), message: "libcurl refused connect-only mode", request: request)
            }
            let code = ccurl_multi_add_handle(multi, easy)
            guard code == 0 else {
                throw APIError(
                    .transport(.other), message: String(cString: ccurl_multi_strerror(code)), request: request)
            }
        } catch {
            end(error, closing: false)
            tearDown()
            return false
        }
        return true
    }

    /// Moves what can move: the sockets to poll, and how long the loop may sleep before it must
    /// look again (`nil`: until a socket or a command wakes it), or `nil` once the socket ended
    /// (its handle freed).
    func service(polling sockets: inout [ccurl_waitfd], buffer: inout [UInt8]) -> Duration?? {
        if shared.withLock({ $0.isClosed }) {
            tearDown()
            return nil
        }
        if case .open = phase {
        } else if ContinuousClock.now >= transfer.deadline {
            end(transfer.deadlineFailure(), closing: false)
            tearDown()
            return nil
        }
        do {
            let (events, wait) = try advance(polling: &sockets, buffer: &buffer)
            if shared.withLock({ $0.isClosed }) {
                tearDown()
                return nil
            }
            if events != 0 { sockets.append(ccurl_waitfd(fd: socket, events: events, revents: 0)) }
            if case .open = phase { return .some(wait) }
            let left = transfer.deadline - ContinuousClock.now
            return .some(min(wait ?? left, left))
        } catch {
            end(error, closing: false)
            tearDown()
            return nil
        }
    }

    /// Takes the phases as far as they go now: the events to wait for on the socket, and libcurl's
    /// timer while it connects.
    private func advance(polling sockets: inout [ccurl_waitfd], buffer: inout [UInt8]) throws -> (Int16, Duration?) {
        if case .connecting = phase {
            let (isConnected, wait) = try connect(polling: &sockets)
            guard isConnected else { return (0, wait) }
        }
        if case .sendingHandshake = phase {
            guard try sendOutgoing() else { return (Int16(CCURL_WAIT_POLLOUT), nil) }
            phase = .readingHead
        }
        if case .readingHead = phase {
            switch try readHead(buffer: &buffer) {
            case .done: break
            case .wouldBlock: return (Int16(CCURL_WAIT_POLLIN), nil)
            case .again: return (Int16(CCURL_WAIT_POLLIN), .zero)
            }
        }
        if case .readingRefusal(let response, let framing) = phase {
            switch try readRefusal(response, framing: framing, buffer: &buffer) {
            case .done: return (0, nil)
            case .wouldBlock: return (Int16(CCURL_WAIT_POLLIN), nil)
            case .again: return (Int16(CCURL_WAIT_POLLIN), .zero)
            }
        }
        guard case .open = phase else { return (0, nil) }
        return (try moveChannelBytes(buffer: &buffer), nil)
    }

    /// Drives libcurl's connect: whether it connected (the phase moved on), else how soon libcurl
    /// wants to be called again (its sockets added to `sockets`).
    private func connect(polling sockets: inout [ccurl_waitfd]) throws -> (Bool, Duration?) {
        guard let multi, let easy else { return (false, nil) }
        var running: Int32 = 0
        ccurl_multi_perform(multi, &running)
        var done: OpaquePointer?
        var code: Int32 = 0
        guard ccurl_multi_next_done(multi, &done, &code) == 1 else {
            var wanted = [ccurl_waitfd](repeating: ccurl_waitfd(), count: 8)
            var timeout = -1
            let count = ccurl_multi_wanted_sockets(multi, &wanted, 8, &timeout)
            if count > 0 { sockets.append(contentsOf: wanted.prefix(Int(count))) }
            return (false, timeout >= 0 ? .milliseconds(timeout) : nil)
        }
        guard code == 0 else {
            if case .failure(let error) = transfer.result(code: code, errorBuffer: errorBuffer) { throw error }
            throw APIError(.transport(.other), message: CurlFailure.describe(code), request: request)
        }
        var descriptor: Int32 = -1
        guard ccurl_easy_active_socket(easy, &descriptor) == 0, descriptor >= 0 else {
            throw APIError(.transport(.connectionLost), message: "libcurl kept no connection", request: request)
        }
        socket = descriptor
        outgoing = handshakeBytes
        outgoingSent = 0
        phase = .sendingHandshake
        return (true, nil)
    }

    /// Sends what is left of `outgoing`: `true` once all of it went out, `false` when the socket
    /// would block.
    private func sendOutgoing() throws -> Bool {
        guard let easy else { return false }
        while outgoingSent < outgoing.count {
            var sent = 0
            let code = outgoing.withUnsafeBytes { bytes in
                ccurl_easy_send(easy, bytes.baseAddress! + outgoingSent, bytes.count - outgoingSent, &sent)
            }
            if Int(code) == CCURLE_AGAIN { return false }
            guard code == 0 else { throw ioFailure(code) }
            outgoingSent += sent
        }
        return true
    }

    /// Receives once into `buffer`: the byte count (0: the peer closed), or `nil` when nothing is there.
    func receive(into buffer: inout [UInt8]) throws -> Int? {
        guard let easy else { return nil }
        if buffer.count < readSize { buffer = [UInt8](repeating: 0, count: readSize) }
        var received = 0
        let code = buffer.withUnsafeMutableBytes { bytes in
            ccurl_easy_recv(easy, bytes.baseAddress, readSize, &received)
        }
        if Int(code) == CCURLE_AGAIN { return nil }
        guard code == 0 else { throw ioFailure(code) }
        return received
    }

    /// The open channel: the pending write goes out, and the socket is read once while a read waits
    /// (never otherwise: a reader that stops reading stops the socket).
    private func moveChannelBytes(buffer: inout [UInt8]) throws -> Int16 {
        var events: Int16 = 0
        if !isSending,
            let bytes = shared.withLock({ shared -> [UInt8]? in
                defer { shared.pendingWrite = nil }
                return shared.pendingWrite
            })
        {
            outgoing = bytes
            outgoingSent = 0
            isSending = true
        }
        if isSending {
            if try sendOutgoing() {
                isSending = false
                outgoing = []
                let waiter = shared.withLock { shared in
                    defer { shared.write = nil }
                    return shared.write
                }
                waiter?.resume()
            } else {
                events |= Int16(CCURL_WAIT_POLLOUT)
            }
        }
        guard shared.withLock({ $0.read != nil }) else { return events }
        // Tried before polling, every time a read waits: TLS may hold bytes libcurl decrypted
        // already, which no poll would announce.
        guard let count = try receive(into: &buffer) else { return events | Int16(CCURL_WAIT_POLLIN) }
        let result: [UInt8]? = count == 0 ? nil : Array(buffer[0..<count])
        let waiter = shared.withLock { shared in
            if count == 0 { shared.readEnd = .peerClosed }
            defer { shared.read = nil }
            return shared.read
        }
        waiter?.resume(returning: result)
        return events
    }

    /// The error for a failed send or receive.
    func ioFailure(_ code: Int32) -> APIError {
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? CurlFailure.describe(code) : detail
        return APIError(.transport(CurlFailure.classify(code, text: text)), message: text, request: request)
    }

    /// Frees the handle (libcurl closes TLS with close_notify, then TCP) and the multi handle.
    func tearDown() {
        if let multi, let easy { ccurl_multi_remove_handle(multi, easy) }
        if let easy { ccurl_easy_cleanup(easy) }
        if let multi { ccurl_multi_cleanup(multi) }
        easy = nil
        multi = nil
        transfer.easy = nil
        socket = -1
    }
}
