/// A transport that resumes its callers on threads of its own (I/O event loops), where heavy work
/// would hold up every other exchange of that loop: ``APIClient`` then decodes a large body on the
/// cooperative pool instead, and comes back afterwards.
///
/// ``CurlTransport`` is one (a caller running on its ``CurlTransport/executor`` is resumed on the
/// loop thread that finished its transfer). A transport whose callers always resume on the
/// cooperative pool (``URLSessionTransport``, most transports) need not adopt it.
public protocol LoopThreadTransport: HTTPTransport {
    /// Whether the calling thread is one of the transport's loop threads.
    var isOnLoopThread: Bool { get }
}
