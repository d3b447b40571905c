/// How far an upload has come: the request body's bytes handed to the network.
public struct UploadProgress: Sendable, Hashable, CustomStringConvertible {
    /// The body's bytes sent so far. Never goes back, even when the transport rewinds the body to
    /// send it again on a fresh connection.
    public var bytesSent: Int64
    /// The whole body's size.
    public var bytesExpected: Int64?

    /// Creates a progress value.
    public init(bytesSent: Int64, bytesExpected: Int64?) {
        self.bytesSent = bytesSent
        self.bytesExpected = bytesExpected
    }

    /// `bytesSent / bytesExpected`, from 0 to 1, when the size is known.
    public var fractionCompleted: Double? {
        guard let bytesExpected, bytesExpected > 0 else { return nil }
        return min(1, Double(bytesSent) / Double(bytesExpected))
    }

    /// `1048576 of 4194304 bytes sent (25%)`, or `1048576 bytes sent` when the size is unknown.
    public var description: String {
        guard let bytesExpected, let fraction = fractionCompleted else { return "\(bytesSent) bytes sent" }
        return "\(bytesSent) of \(bytesExpected) bytes sent (\(Int(fraction * 100))%)"
    }
}
