import Courier

/// A CurlTransport whose loops the callers run on, for the "callers on its executor" rows: task
/// executors exist only on newer Apple systems (macOS 15, iOS 18), so the benchmark names the
/// transport and asks for its executor where the system has one.
struct LoopExecutor: Sendable {
    let transport: CurlTransport

    init(_ transport: CurlTransport) {
        self.transport = transport
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    var executor: (any TaskExecutor)? { transport.executor }
}
