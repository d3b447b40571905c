import CCourierCurl
import Foundation

/// A transport that drives libcurl directly: event loop threads (one per two processors by
/// default), keep-alive connections that survive, HTTP/2 multiplexing (and h2c), public-key
/// pinning, client certificates, HTTP, HTTPS and SOCKS5 proxies with credentials, fixed addresses
/// (see ``Configuration``). The default transport on Linux.
///
/// On Linux it is several times faster than `URLSession` (which is built on the same libcurl, with
/// many thread hops per request, see docs/PERFORMANCE.md) and it fixes FoundationNetworking's
/// pitfalls at the root: response bodies are read at the pace the consumer takes them (flow
/// control), headers are parsed in linear time and kept in order with repeats, a refused
/// decompression bomb stops inflating at once, and timeouts have millisecond precision.
///
/// Its semantics are ``URLSessionTransport``'s: redirects are followed by Courier under one
/// ``RedirectPolicy``, the request's ``HTTPRequest/timeout`` is a deadline for the whole exchange,
/// bodies are decompressed with a limit on decoded bytes, and a cancelled task ends at once with
/// `CancellationError`. Proxy environment variables (`http_proxy`, `https_proxy`, `no_proxy`, …)
/// are honoured as curl honours them.
///
/// libcurl is loaded when the first transport is made (`libcurl.so.4` on Linux, the system's on
/// macOS); where it cannot be, ``isAvailable`` is `false` and every request fails with
/// ``TransportFailure/other`` saying why.
///
/// ```swift
/// let transport = CurlTransport(configuration: .init(
///     tls: .init(pinnedPublicKeyHashes: ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="])))
/// let client = APIClient(baseURL: url, transport: transport)
/// ```
public final class CurlTransport: HTTPStreamingTransport {
    /// Whether libcurl could be loaded on this machine.
    public static var isAvailable: Bool { CurlLibrary.loadFailure == nil }

    /// libcurl's version text (`libcurl/7.88.1 OpenSSL/3.0.19 …`), when it is available.
    public static var libraryVersion: String? { CurlLibrary.version }

    /// The transport's settings.
    public let configuration: Configuration
    let loops: CurlLoops?
    /// Why the proxy settings cannot be used (checked once, before libcurl sees them), or `nil`.
    let configurationProblem: String?
    /// The most a WebSocket's read takes from the connection at once (and the most the loop holds
    /// for a reader that stopped reading).
    let webSocketReadSize: Int

    /// Creates a transport with its own event loop threads and connection caches.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, webSocketReadSize: 1 << 16)
    }

    /// A transport whose WebSocket reads take at most `webSocketReadSize` bytes: tests make it
    /// smaller than a TLS record, so that a read leaves decrypted bytes inside TLS.
    package init(configuration: Configuration = Configuration(), webSocketReadSize: Int) {
        _ = Self.registeredLoopThreadCheck
        self.webSocketReadSize = max(1, webSocketReadSize)
        self.configuration = configuration
        configurationProblem = CurlProxyCheck.problem(in: configuration)
        loops = Self.isAvailable ? CurlLoops(configuration: configuration) : nil
    }

    deinit {
        loops?.shutdown()
    }

    /// The transport's loop threads as a task executor: code run with
    /// `withTaskExecutorPreference(transport.executor) { … }` continues on a loop thread when a
    /// response arrives, saving the two thread switches of each request. ``APIClient`` decodes a
    /// body of 4 KiB or more off the loop, on the cooperative pool, when the loop has other work in
    /// hand or the body is over 16 KiB, so decoding never holds up a transfer in progress (one
    /// started during a decode on an idle loop waits for it, a few milliseconds at most for JSON);
    /// keep other heavy work out of such code too: while it runs, no other transfer of that loop
    /// moves. `nil` when libcurl is unavailable.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var executor: (any TaskExecutor)? { loops }

    /// Sends the request, following redirects by ``Configuration/redirects``.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/transport(_:)``, or `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, consumer: nil)
    }

    /// Sends the request, following redirects, and hands the final response's body to `consumer`
    /// as it arrives (when it accepts it), at the pace the consumer takes it.
    ///
    /// The consumer is called on one of the transport's loop threads: it should be quick (appending
    /// to a file is), since every other transfer of that loop waits for it.
    ///
    /// - Throws: ``APIError`` with kind ``APIError/Kind/transport(_:)``, the consumer's own error,
    ///   or `CancellationError`.
    package func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer) async throws
        -> HTTPResponse
    {
        try await send(request, consumer: consumer)
    }

    /// The loop that takes the next exchange; throws when libcurl is missing or the configuration
    /// cannot be used (a setting no retry can mend: not a failure to connect).
    func nextLoop(for request: HTTPRequest) throws -> CurlLoop {
        guard let loop = loops?.next() else {
            throw APIError(
                .transport(.other), message: CurlLibrary.loadFailure ?? "libcurl could not make a multi handle",
                request: request)
        }
        if let configurationProblem {
            throw APIError(.transport(.other), message: configurationProblem, request: request)
        }
        return loop
    }

    private func send(_ request: HTTPRequest, consumer: (any ResponseBodyConsumer)?) async throws -> HTTPResponse {
        let loop = try nextLoop(for: request)
        let timeout = request.timeout ?? configuration.timeout
        let uploadMeter = CallContext.current.uploadMeter
        return try await RedirectLoop.send(request, policy: configuration.redirects, timeout: timeout) {
            current, deadline, bodyFile in
            let transfer = try CurlTransfer(
                request: current, bodyFile: bodyFile, budget: deadline - ContinuousClock.now,
                configuration: configuration, consumer: consumer, uploadMeter: current.body == nil ? nil : uploadMeter)
            if let stream = transfer.upload?.stream, stream.length == 0 {
                // libcurl never reads a body it was told is empty: the producer's end (or its
                // error, or a byte too many) is awaited here, before the request goes out.
                try await stream.drain(idleTimeout: transfer.idleTimeout, deadline: deadline) { _ in }
            }
            do {
                return try await Self.perform(transfer, on: loop)
            } catch {
                guard transfer.refusedContentCoding, current.body == nil, current.method.isIdempotent else {
                    throw error
                }
                // A coding libcurl does not know (`Content-Encoding: x-unknown`): asked again with
                // decoding off, the body is delivered as it came, its Content-Encoding intact, as
                // browsers do. Only a request without a body that may be repeated is asked twice.
                let undecoded = try CurlTransfer(
                    request: current, bodyFile: bodyFile, budget: deadline - ContinuousClock.now,
                    configuration: configuration, consumer: consumer, decodesContent: false)
                return try await Self.perform(undecoded, on: loop)
            }
        }
    }

    /// Runs one transfer on `loop` and reads its response.
    private static func perform(_ transfer: CurlTransfer, on loop: CurlLoop) async throws -> HTTPResponse {
        // However the call ends, a body stream's producer stops with it.
        defer { transfer.bodyStream?.close() }
        let delivery = try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                if transfer.begin(continuation) { loop.start(transfer) }
            }
        } onCancel: {
            if transfer.finish(.failure(CancellationError())) { loop.cancel(transfer) }
        }
        return try transfer.response(of: delivery)
    }
}

extension CurlTransport: HTTPTimeoutDefaulting {
    package var defaultTimeout: Duration { configuration.timeout }
}

extension CurlTransport: LoopThreadTransport {
    /// Whether the calling thread is one of this transport's event loops.
    public var isOnLoopThread: Bool { loops?.isCallingFromLoop ?? false }

    /// Tells ``LoopThreadHop`` whether a thread is any CurlTransport's loop, once per process: a
    /// caller of a transport that wraps this one is resumed there too.
    private static let registeredLoopThreadCheck: Void = LoopThreadHop.register {
        guard let loop = ccourier_current_loop() else { return .other }
        return Unmanaged<CurlLoop>.fromOpaque(loop).takeUnretainedValue().isIdle ? .idleLoop : .busyLoop
    }
}
