/// How far a download has come.
public struct DownloadProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes in the file so far (after a resumption, those received before it included).
    public var bytesReceived: Int64
    /// The whole body's size, when the server says.
    public var bytesExpected: Int64?

    /// Creates a progress value.
    public init(bytesReceived: Int64, bytesExpected: Int64?) {
        self.bytesReceived = bytesReceived
        self.bytesExpected = bytesExpected
    }

    /// `bytesReceived / bytesExpected`, from 0 to 1, when the size is known.
    public var fractionCompleted: Double? {
        guard let bytesExpected, bytesExpected > 0 else { return nil }
        return min(1, Double(bytesReceived) / Double(bytesExpected))
    }

    /// `1048576 of 4194304 bytes (25%)`, or `1048576 bytes` when the size is unknown.
    public var description: String {
        guard let bytesExpected, let fraction = fractionCompleted else { return "\(bytesReceived) bytes" }
        return "\(bytesReceived) of \(bytesExpected) bytes (\(Int(fraction * 100))%)"
    }
}

/// How a download treats the disk and the server.
public struct DownloadOptions: Sendable, Hashable {
    /// Whether an existing file at the destination may be replaced. `false` by default: the
    /// download fails before sending anything.
    public var overwritesExisting: Bool
    /// The largest body accepted, in bytes; a larger one fails with
    /// ``TransportFailure/responseTooLarge`` as soon as it is announced or passed. `nil` for no limit.
    public var maximumSize: Int64?
    /// How many interruptions in a row (a lost connection, an idle timeout) that each gained less
    /// than ``minimumProgressPerAttempt`` a download survives; each resumes where the file stopped,
    /// with `Range` (from zero when the server ignores `Range`), after a backoff that doubles from
    /// 0.1 s up to 5 s. An attempt that brings at least the minimum starts the count again.
    public var resumeAttempts: Int
    /// The fewest bytes an interrupted attempt must bring to count as progress: 64 KiB by default,
    /// so a server that sends a byte per connection and closes is given up on, not resumed forever.
    public var minimumProgressPerAttempt: Int64
    /// The most resumptions of one download, however much each brought. 100 by default.
    public var maximumResumptions: Int

    /// The longest the whole download may take, every resumption included, when the route sets no
    /// ``Route/timeout``: an hour by default, since a large body takes longer than an API call's
    /// minute. Past it the download fails with ``TransportFailure/deadlineExceeded``.
    public var timeout: Duration

    /// Creates options.
    public init(
        overwritesExisting: Bool = false, maximumSize: Int64? = nil, resumeAttempts: Int = 3,
        timeout: Duration = .seconds(3600), minimumProgressPerAttempt: Int64 = 64 * 1024,
        maximumResumptions: Int = 100
    ) {
        self.overwritesExisting = overwritesExisting
        self.maximumSize = maximumSize
        self.resumeAttempts = max(0, resumeAttempts)
        self.timeout = timeout
        self.minimumProgressPerAttempt = max(1, minimumProgressPerAttempt)
        self.maximumResumptions = max(0, maximumResumptions)
    }
}
