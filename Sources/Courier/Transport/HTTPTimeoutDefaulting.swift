/// A transport that gives requests without a ``HTTPRequest/timeout`` of their own the timeout of
/// its configuration: what ``APIClient`` counts a request's wait for a slot against.
package protocol HTTPTimeoutDefaulting: HTTPTransport {
    /// The deadline of a request that sets no timeout.
    var defaultTimeout: Duration { get }
}
