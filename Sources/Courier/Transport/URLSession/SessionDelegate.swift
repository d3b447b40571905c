import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's delegate: routes each task's callbacks to its ``URLSessionExchange``.
///
/// `@unchecked Sendable`: its only mutable state, `exchanges`, is a ``Locked`` value; the
/// checker cannot see that through the `NSObject` superclass URLSession's delegate protocols need.
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    private static let httpAuthenticationMethods: Set<String> = [
        NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
        NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate, NSURLAuthenticationMethodHTMLForm,
    ]

    private let exchanges = Locked([Int: URLSessionExchange]())

    #if canImport(Security) && !canImport(FoundationNetworking)
        /// What answers a server's request for a client certificate: the transport's PKCS#12
        /// identity, read once; `nil` when it has none or it could not be read.
        private let clientCredential: URLCredential?
        /// Whether the transport was given a client certificate at all.
        private let hasClientCertificate: Bool

        init(clientCertificate: ClientCertificate?) {
            clientCredential = clientCertificate?.urlCredential()
            hasClientCertificate = clientCertificate != nil
        }
    #else
        init(clientCertificate: ClientCertificate?) {}
    #endif

    /// The session's delegate queue: one at a time, so one exchange's callbacks never overlap.
    let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "Courier.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        return queue
    }()

    func register(_ exchange: URLSessionExchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    @discardableResult
    func unregister(_ task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let accepted = exchange(for: dataTask)?.receive(response) ?? false
        completionHandler(accepted ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if exchange(for: dataTask)?.append(data) == false {
            dataTask.cancel()
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        exchange(for: task)?.bodySent(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // A body file's stream, from its first byte: for the first attempt and for every resend.
        completionHandler(exchange(for: task)?.makeBodyStream())
    }

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        guard let exchange = exchange(for: downloadTask) else { return }
        guard exchange.offerDownloadHead(downloadTask.response) else {
            downloadTask.cancel()
            return
        }
        if !exchange.downloadProgressed(totalBytesWritten) {
            downloadTask.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL
    ) {
        exchange(for: downloadTask)?.keepDownloadedFile(location)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Courier follows redirects itself (RedirectPolicy), the same way on every platform.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security) && !canImport(FoundationNetworking)
            if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodClientCertificate {
                // The transport's identity; without one (or one that could not be read), the
                // handshake goes on without a certificate, or ends when the certificate was unusable.
                if let clientCredential {
                    completionHandler(.useCredential, clientCredential)
                } else {
                    completionHandler(
                        hasClientCertificate ? .cancelAuthenticationChallenge : .performDefaultHandling, nil)
                }
                return
            }
        #endif
        guard Self.httpAuthenticationMethods.contains(challenge.protectionSpace.authenticationMethod) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        // An HTTP authentication challenge (a 401 with WWW-Authenticate): credentials are the auth
        // middleware's job, so hand the 401 back. Linux's default handling waits forever; declining
        // ends the task as "cancelled" with the 401 as its response, which the exchange reads back.
        #if canImport(FoundationNetworking)
            exchange(for: task)?.noteDeclinedChallenge()
            completionHandler(.rejectProtectionSpace, nil)
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        unregister(task)?.complete(task: task, error: error)
    }
}
