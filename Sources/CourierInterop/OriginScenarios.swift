import Courier
import Foundation

/// The scenarios every origin server is put through, on one transport.
struct OriginScenarios {
    let target: Plan.Target
    let plan: Plan
    let transport: any HTTPTransport
    let kind: TransportKind
    let log: AccessLog

    init(target: Plan.Target, plan: Plan, transport: any HTTPTransport, kind: TransportKind) {
        self.target = target
        self.plan = plan
        self.transport = transport
        self.kind = kind
        log = AccessLog(path: target.log, format: target.logFormat)
    }

    /// Each scenario's name, how it is checked, and the check itself (it returns what it saw).
    var all: [(name: String, check: String, run: () async throws -> String)] {
        var list: [(String, String, () async throws -> String)] = [
            ("GET 1 KiB", "status 200, body byte for byte the file served", { try await get("small.txt") }),
            ("GET 1 MiB", "status 200, body byte for byte the file served", { try await get("1mib.bin") }),
            ("redirect (302)", "final 200 after 1 redirect, body the target file", redirect),
            ("HEAD", "status 200, no body, Content-Length 1048576", head),
            ("304 revalidation", "ETag of a GET sent back in If-None-Match: 304, no body", revalidate),
            ("keep-alive reuse", "4 GETs one after another: 4 access-log lines, 1 connection", keepAlive),
        ]
        if target.has("gzip") {
            list.append(
                (
                    "gzip", "Accept-Encoding: gzip; Content-Encoding gzip; decoded body = the file",
                    {
                        try await encoded("gzip")
                    }
                ))
        }
        if target.has("brotli") {
            list.append(
                (
                    "brotli", "Accept-Encoding: br; Content-Encoding br; decoded body = the file",
                    {
                        try await encoded("br")
                    }
                ))
        }
        if target.protocol == "HTTP/2" {
            list.append(
                (
                    "16 concurrent requests, one HTTP/2 connection",
                    "16 GETs at once after one: 16 access-log lines, HTTP/2, 1 connection", multiplexed
                ))
        }
        if target.has("upload") {
            list.append(
                (
                    "64 MiB streamed upload, unknown length",
                    "PUT of HTTPBody.stream(length: nil); the file the server wrote = what was sent; log: chunked",
                    streamedUpload
                ))
        }
        if target.mtls != nil {
            list.append(
                (
                    "mTLS accepted (client certificate)",
                    "TLSOptions.clientCertificate = .pem(our CA's client certificate, key): 200, body = the file",
                    { try await mutualTLS(certificate: "client") }
                ))
            list.append(
                (
                    "mTLS refused (certificate of another CA)",
                    "a self-signed client certificate: .clientCertificateRejected, no response",
                    { try await mutualTLS(certificate: "rogue") }
                ))
            list.append(
                (
                    "mTLS refused (no client certificate)",
                    "no certificate: CurlTransport .clientCertificateRejected (see below); URLSession a transport error; no response",
                    { try await mutualTLS(certificate: nil) }
                ))
        }
        return list
    }

    // MARK: Helpers

    func url(_ path: String, marker: String = UUID().uuidString) -> URL {
        URL(string: "\(target.base!)/\(path)?interop=\(marker)")!
    }

    func file(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: plan.www).appendingPathComponent(name))
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transport.send(request)
    }

    /// The protocol named by the log lines, checked against the target's for CurlTransport (which is
    /// told what to speak); URLSession speaks what FoundationNetworking negotiates.
    func checkProtocol(_ lines: [AccessLog.Line]) throws -> String {
        let names = Set(lines.map(\.protocolName)).sorted().joined(separator: ", ")
        if kind == .curl {
            let wantsHTTP2 = target.protocol == "HTTP/2"
            try require(lines.allSatisfy { $0.isHTTP2 == wantsHTTP2 }, "the log says \(names), not \(target.protocol)")
        }
        return names
    }

    /// The protocol the transport speaks to this server, as the server's log names it (one GET).
    func observedProtocol() async -> String {
        let marker = UUID().uuidString
        guard (try? await send(HTTPRequest(url: url("small.txt", marker: marker)))) != nil else { return "?" }
        let lines = await log.waitForLines(containing: marker, count: 1)
        return lines.first.map { $0.isHTTP2 ? "HTTP/2" : $0.protocolName } ?? "?"
    }

    // MARK: Scenarios

    func get(_ name: String) async throws -> String {
        let marker = UUID().uuidString
        let response = try await send(HTTPRequest(url: url(name, marker: marker)))
        let expected = try file(name)
        try require(response.status.code == 200, describe(response))
        try require(response.body == expected, "the body differs from the file (\(response.body.count) bytes)")
        let lines = await log.waitForLines(containing: marker, count: 1)
        try require(lines.count == 1, "\(lines.count) access-log lines for the request")
        return "\(expected.count) bytes equal; log: \(try checkProtocol(lines))"
    }

    func redirect() async throws -> String {
        let response = try await send(HTTPRequest(url: url("redirect")))
        try require(
            response.status.code == 200 && response.redirectCount == 1,
            "\(describe(response)) after \(response.redirectCount) redirects")
        try require(response.body == (try file("small.txt")), "the body is not the redirect's target")
        return "200 after 1 redirect"
    }

    func head() async throws -> String {
        let response = try await send(HTTPRequest(method: .head, url: url("1mib.bin")))
        try require(response.status.code == 200 && response.body.isEmpty, describe(response))
        let length = response.headers[.contentLength]
        try require(length == "1048576", "Content-Length \(length ?? "none")")
        return "200, Content-Length 1048576, no body"
    }

    func revalidate() async throws -> String {
        let first = try await send(HTTPRequest(url: url("small.txt")))
        guard let etag = first.headers["ETag"] else { throw ScenarioFailure("the first response has no ETag") }
        let second = try await send(HTTPRequest(url: url("small.txt"), headers: [.ifNoneMatch: etag]))
        try require(second.status.code == 304 && second.body.isEmpty, "If-None-Match \(etag): \(describe(second))")
        return "304 for ETag \(etag)"
    }

    func keepAlive() async throws -> String {
        let marker = UUID().uuidString
        for _ in 0..<4 {
            let response = try await send(HTTPRequest(url: url("small.txt", marker: marker)))
            try require(response.status.code == 200, describe(response))
        }
        let lines = await log.waitForLines(containing: marker, count: 4)
        try require(lines.count == 4, "\(lines.count) access-log lines for 4 requests")
        let connections = Set(lines.map(\.connection))
        try require(connections.count == 1, "\(connections.count) connections for 4 requests: \(connections.sorted())")
        return "4 requests on connection \(connections.first!) (\(try checkProtocol(lines)))"
    }

    func encoded(_ coding: String) async throws -> String {
        let response = try await send(HTTPRequest(url: url("text.txt"), headers: [.acceptEncoding: coding]))
        try require(response.status.code == 200, describe(response))
        let encoding = response.headers[.contentEncoding]
        try require(encoding == coding, "Content-Encoding \(encoding ?? "none"), not \(coding)")
        let expected = try file("text.txt")
        try require(response.body == expected, "the decoded body differs from the file (\(response.body.count) bytes)")
        return "\(coding), \(expected.count) bytes decoded equal"
    }

    func multiplexed() async throws -> String {
        let warmUp = try await send(HTTPRequest(url: url("small.txt")))
        try require(warmUp.status.code == 200, describe(warmUp))
        let marker = UUID().uuidString
        let transport = self.transport
        let requests = (0..<16).map { _ in HTTPRequest(url: url("small.txt", marker: marker)) }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for request in requests { group.addTask { try await transport.send(request).status.code } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        try require(statuses.allSatisfy { $0 == 200 }, "statuses \(statuses)")
        // mod_http2 logs a stream when it cleans it up, which can wait for the connection's next
        // activity: one more request makes it write every line.
        _ = try await send(HTTPRequest(url: url("small.txt")))
        let lines = await log.waitForLines(containing: marker, count: 16)
        try require(lines.count == 16, "\(lines.count) access-log lines for 16 requests")
        if kind == .urlSession, !lines.allSatisfy(\.isHTTP2) {
            throw Unsupported("FoundationNetworking spoke \(Set(lines.map(\.protocolName)).sorted()), not HTTP/2")
        }
        let protocols = try checkProtocol(lines)
        let connections = Set(lines.map(\.connection))
        try require(connections.count == 1, "\(connections.count) connections for 16 requests")
        return "16 requests on connection \(connections.first!) (\(protocols))"
    }

    /// CurlTransport as the matrix configures it: the protocol the target names, the test CA, and
    /// a client certificate (`client` or `rogue` of the plan's certificates) if asked.
    static func curlTransport(for target: Plan.Target, plan: Plan, clientCertificate: String? = nil) -> CurlTransport {
        let folder = URL(fileURLWithPath: plan.certificates)
        let certificate = clientCertificate.map {
            ClientCertificate.pem(
                certificate: folder.appendingPathComponent("\($0).pem"),
                privateKey: folder.appendingPathComponent("\($0).key"))
        }
        return CurlTransport(
            configuration: .init(
                timeout: .seconds(30), httpVersion: target.protocol == "HTTP/2" ? .http2 : .http1,
                tls: .init(certificateAuthorities: URL(fileURLWithPath: plan.ca), clientCertificate: certificate)))
    }

    /// A GET to the host that requires a client certificate, showing `certificate` (or none): only
    /// our CA's `client` certificate gets the file.
    func mutualTLS(certificate: String?) async throws -> String {
        let url = URL(string: "\(target.mtls!)/small.txt?interop=\(UUID().uuidString)")!
        let folder = URL(fileURLWithPath: plan.certificates)
        #if canImport(FoundationNetworking)
            if kind == .urlSession, let certificate {
                // URLSessionTransport says so before any I/O: check that it does.
                let shown = ClientCertificate.pem(
                    certificate: folder.appendingPathComponent("\(certificate).pem"),
                    privateKey: folder.appendingPathComponent("\(certificate).key"))
                let session = URLSessionTransport(configuration: .init(clientCertificate: shown))
                do {
                    _ = try await session.send(HTTPRequest(url: url))
                } catch let error as APIError where error.kind == .transport(.clientCertificateRejected) {
                    throw Unsupported("FoundationNetworking cannot present one: refused before any I/O")
                }
                throw ScenarioFailure("URLSessionTransport sent the request without the client certificate")
            }
        #endif
        let transport =
            kind == .curl ? Self.curlTransport(for: target, plan: plan, clientCertificate: certificate) : self.transport
        do {
            let response = try await transport.send(HTTPRequest(url: url))
            if certificate == "client" {
                try require(response.status.code == 200 && response.body == (try file("small.txt")), describe(response))
                return "200, the file, with the client certificate"
            }
            throw ScenarioFailure("the host answered: \(describe(response))")
        } catch let error as APIError {
            if certificate == "client" { throw ScenarioFailure("\(error)") }
            // URLSession on Linux says only what libcurl's text says (.tls, or .other when libcurl
            // saw only the closed connection); CurlTransport names the refusal.
            var isTransport = false
            if case .transport = error.kind { isTransport = true }
            // Now and then libcurl 7.88 finds the connection closed by the server before it reads
            // the alert (getpeername() fails, errno 107): still refused, but not named so.
            let lostAlert = error.kind == .transport(.connectionLost) && error.message.contains("getpeername()")
            let refused =
                kind == .curl ? error.kind == .transport(.clientCertificateRejected) || lostAlert : isTransport
            try require(refused && error.response == nil, "\(error)")
            if lostAlert { return "refused, but libcurl lost the alert: \(error.kind), \(error.message.prefix(60))" }
            return "refused (\(error.kind)): \(error.message.prefix(70))"
        }
    }
}
