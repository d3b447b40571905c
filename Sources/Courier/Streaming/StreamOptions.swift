/// How a ``ResponseStream`` buffers: the memory it may hold before the transport stops reading,
/// and how much of an error status's body it keeps.
///
/// A stream has no whole-exchange deadline unless its route sets ``Route/timeout`` (streams are
/// long-lived); the idle timeout still applies (``Route/idleTimeout``, else the transport's), and
/// time the stream spends paused because its reader stopped reading does not count as idle.
public struct StreamOptions: Sendable, Hashable {
    /// The body bytes held for the reader before the transport pauses the network: 1 MiB by
    /// default. Memory stays within about this plus one network read, whatever the body's size
    /// and the reader's pace; a compressed body counts its compressed bytes here, and is inflated
    /// as it is read, at most 256 KiB a piece (``CurlTransport``).
    public var bufferSize: Int
    /// The most bytes of an unacceptable status's body kept for ``APIError``: 64 KiB by default.
    /// A longer error body fails the call at that point with what was kept.
    public var maximumErrorBodySize: Int
    /// The most body bytes held when the transport cannot pause the network: 16 MiB by default (at
    /// least twice ``bufferSize``). Only ``URLSessionTransport`` on Linux gets there, since
    /// FoundationNetworking restarts a suspended task from the beginning instead of resuming it;
    /// a reader that falls further behind fails with ``TransportFailure/responseTooLarge``, and
    /// FoundationNetworking goes on reading the rest of the body into memory of its own until it
    /// processes the cancel (+126 to +252 MiB on a 1 GiB stream on loopback).
    /// ``CurlTransport`` and URLSession on Apple platforms pause instead.
    public var maximumBacklog: Int

    /// Creates options.
    public init(bufferSize: Int = 1 << 20, maximumErrorBodySize: Int = 64 * 1024, maximumBacklog: Int = 16 << 20) {
        self.bufferSize = max(1, bufferSize)
        self.maximumErrorBodySize = max(0, maximumErrorBodySize)
        self.maximumBacklog = max(maximumBacklog, 2 * self.bufferSize)
    }
}
