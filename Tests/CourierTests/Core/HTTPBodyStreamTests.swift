import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Chunks of `sizes` bytes each, made as they are asked for.
private func bodyChunks(_ sizes: [Int], byte: UInt8 = 0x61) -> AsyncStream<Data> {
    AsyncStream { continuation in
        for size in sizes { continuation.yield(Data(repeating: byte, count: size)) }
        continuation.finish()
    }
}

private final class RejectingTokens: CredentialProvider {
    func credential() async throws -> Credential { .bearer("old") }
    func refresh(rejecting credential: Credential) async throws -> Credential? { .bearer("new") }
}

private struct ProducerBroke: Error {}

@Suite("Body streams")
struct HTTPBodyStreamTests {
    private func reader(_ sizes: [Int], length: Int64?) throws -> BodyStreamReader {
        let request = HTTPRequest(method: .post, url: baseURL)
        return try BodyStreamReader(HTTPBodyStream(bodyChunks(sizes), length: length), request: request)
    }

    /// Reads until the end or a failure, waiting for the producer when it has nothing: (bytes handed
    /// out, the failure).
    private func drain(_ reader: BodyStreamReader, onWait: (_ handed: Int) -> Void = { _ in }) async -> (
        Int, (any Error)?
    ) {
        var buffer = [UInt8](repeating: 0, count: 1000)
        var total = 0
        while true {
            do {
                let read = try buffer.withUnsafeMutableBytes { try reader.read(into: $0, waker: {}) }
                switch read {
                case .bytes(let count): total += count
                case .end: return (total, nil)
                case .wait:
                    onWait(total)
                    try await Task.sleep(for: .milliseconds(1))
                }
            } catch {
                return (total, error)
            }
        }
    }

    @Test("a stream that yields more than its declared length hands out less than the length, then fails")
    func extraBytesNeverHandedOut() async throws {
        let (handed, failure) = await drain(try reader([3000, 3000, 10], length: 6000))
        #expect(handed < 6000, "the whole declared body went out before the extra bytes were seen")
        #expect((failure as? APIError)?.kind == .transport(.bodyLengthMismatch), "\(String(describing: failure))")
    }

    @Test("the declared length's last byte waits for the producer's end: a chunk too many after a pause is caught")
    func lastByteHeldBack() async throws {
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        continuation.yield(Data(count: 6000))
        let reader = try BodyStreamReader(
            HTTPBodyStream(chunks, length: 6000), request: HTTPRequest(method: .post, url: baseURL))
        // Once the reader has handed out all it may and waits, the producer finds one more chunk.
        let (handed, failure) = await drain(reader) { handed in
            guard handed >= 5999 else { return }
            continuation.yield(Data(count: 1))
            continuation.finish()
        }
        #expect(handed < 6000, "the whole declared body went out before the extra byte was seen")
        #expect((failure as? APIError)?.kind == .transport(.bodyLengthMismatch), "\(String(describing: failure))")
    }

    @Test("a stream that yields fewer bytes than declared fails instead of ending")
    func tooFewBytesFail() async throws {
        let (handed, failure) = await drain(try reader([3000, 2999], length: 6000))
        #expect(handed <= 5999)
        #expect((failure as? APIError)?.kind == .transport(.bodyLengthMismatch))
    }

    @Test("exactly the declared length, in uneven and empty chunks, ends cleanly")
    func exactLength() async throws {
        let (handed, failure) = await drain(try reader([1, 0, 4999, 0, 1000], length: 6000))
        #expect(handed == 6000)
        #expect(failure == nil)
    }

    @Test("a stream is sent once: a second send fails with invalidRequest before anything of it is read")
    func secondSendRefused() async throws {
        let transport = StubTransport().on(.post, "*", .text("ok"))
        let stream = HTTPBodyStream(bodyChunks([5, 5]), length: 10)
        let request = HTTPRequest(method: .post, url: baseURL.appendingPathComponent("up"), body: .stream(stream))
        _ = try await transport.send(request)
        #expect(transport.requests.first?.body == .data(Data(repeating: 0x61, count: 10)))
        #expect(!request.mayBeSentAgain)
        let error = try #require(await #expect(throws: APIError.self) { _ = try await transport.send(request) })
        #expect(error.kind == .invalidRequest)
        #expect("\(error)".contains("stream"))
    }

    @Test("a retry of a 503 does not send a stream again: the first response's error comes back")
    func retryGivesUp() async throws {
        let transport = StubTransport().on(.put, "*", .status(.serviceUnavailable), .text("ok"))
        let client = APIClient(
            baseURL: baseURL, transport: transport,
            middlewares: [RetryMiddleware(clock: ManualClock().retryClock(random: { 1 }))])
        let body = RequestBody.stream(HTTPBodyStream(bodyChunks([100])))
        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(method: .put, path: "up", body: body, as: Data.self))
            })
        #expect(error.kind == .unacceptableStatus(.serviceUnavailable), "\(error)")
        #expect(transport.requests.count == 1)
    }

    @Test("a 401 refreshed by AuthMiddleware fails with a clear error instead of sending the stream again")
    func authRefreshRefused() async throws {
        let transport = StubTransport().on(.post, "*", .status(.unauthorized))
        let client = APIClient(
            baseURL: baseURL, transport: transport, middlewares: [AuthMiddleware(provider: RejectingTokens())])
        let body = RequestBody.stream(HTTPBodyStream(bodyChunks([100])))
        let error = try #require(
            await #expect(throws: APIError.self) {
                try await client.send(Request(method: .post, path: "up", body: body, as: Data.self))
            })
        #expect(error.kind == .invalidRequest, "\(error)")
        #expect("\(error)".contains("sent already"), "\(error)")
        #expect(transport.requests.count == 1)
    }

    @Test("a producer that throws fails the call with its error attached")
    func producerError() async throws {
        let transport = StubTransport().on(.post, "*", .text("ok"))
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(count: 10))
            continuation.finish(throwing: ProducerBroke())
        }
        let request = HTTPRequest(method: .post, url: baseURL, body: .stream(HTTPBodyStream(chunks)))
        let error = try #require(await #expect(throws: APIError.self) { _ = try await transport.send(request) })
        #expect(error.underlyingError is ProducerBroke)
    }

    @Test("a 307 with a stream body is refused; a 303 turns it into a GET without a body")
    func redirects() throws {
        let request = HTTPRequest(
            method: .post, url: baseURL.appendingPathComponent("up"), body: .stream(HTTPBodyStream(bodyChunks([1]))))
        func redirect(_ code: Int) -> HTTPResponse {
            HTTPResponse(status: HTTPStatus(code: code), headers: ["Location": "/elsewhere"], url: request.url)
        }
        for code in [307, 308] {
            let error = try #require(
                throws: APIError.self, "\(code)",
                performing: {
                    try RedirectPolicy.default.nextRequest(after: redirect(code), to: request, redirectsSoFar: 0)
                })
            #expect(error.kind == .transport(.invalidRedirect))
            #expect("\(error)".contains("stream"), "\(error)")
        }
        let next = try RedirectPolicy.default.nextRequest(after: redirect(303), to: request, redirectsSoFar: 0)
        #expect(next?.method == .get)
        #expect(next?.body == nil)
    }

    @Test("the cURL rendering reads standard input, names the length, and leaves the stream unread")
    func curlCommand() {
        let stream = HTTPBodyStream(bodyChunks([4]), length: 4)
        let request = HTTPRequest(method: .post, url: baseURL, body: .stream(stream))
        let command = request.curlCommand()
        #expect(command.hasSuffix("--data-binary @-"), "\(command)")
        #expect(command.contains("'Content-Length: 4'"))
        #expect(!stream.hasBeenSent)
        #expect(HTTPBody.stream(stream).length == 4)
        #expect(HTTPBody.stream(stream) == .stream(stream))
        #expect(HTTPBody.stream(stream) != .stream(HTTPBodyStream(bodyChunks([4]), length: 4)))
    }
}
