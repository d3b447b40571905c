import Foundation

/// A transport that can hand a response body to a ``ResponseBodyConsumer`` as it arrives.
///
/// ``URLSessionTransport`` and `CourierTesting.StubTransport` are streaming transports. A client
/// whose transport is not one still downloads correctly, with the body in memory first.
package protocol HTTPStreamingTransport: HTTPTransport {
    /// Sends the request; the final response's body goes to `consumer` when it accepts it, and the
    /// returned response's body is then empty.
    func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer) async throws -> HTTPResponse
}

/// A streaming transport that cannot slow the network down to the consumer's pace, so bodies over
/// ``largestStreamedBody`` (or of unknown size) are better buffered on disk by the transport
/// first (``ResponseBodyConsumer/prefersDiskBuffering``): what downloads ask of a transport, instead
/// of testing for a concrete type.
package protocol HTTPDiskBufferingTransport: HTTPStreamingTransport {
    /// The largest body streamed piece by piece; larger ones go through the transport's disk buffer.
    var largestStreamedBody: Int64 { get }
}
