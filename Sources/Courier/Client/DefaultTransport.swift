import Foundation

extension APIClient {
    /// A new instance of the transport clients use when none is given: ``CurlTransport`` on Linux
    /// (when libcurl can be loaded, as it can wherever FoundationNetworking runs), and
    /// ``URLSessionTransport`` on Apple platforms, where URLSession is the system's own stack.
    ///
    /// Either transport can be chosen explicitly on every platform that has it:
    ///
    /// ```swift
    /// let client = APIClient(baseURL: url, transport: URLSessionTransport())
    /// ```
    public static func defaultTransport() -> any HTTPTransport {
        #if os(Linux)
            if CurlTransport.isAvailable { return CurlTransport() }
        #endif
        return URLSessionTransport()
    }
}
