import Foundation

extension APIClient {
    /// Downloads a route's response body into a file, streaming it to disk so memory stays bounded
    /// whatever its size.
    ///
    /// ```swift
    /// let download = client.download(Request.get("releases/big.iso", as: Data.self), to: file)
    /// for await step in download.progress { print(step) }      // 1048576 of 4194304 bytes (25%)
    /// let saved = try await download.file()
    /// ```
    ///
    /// The body goes to a temporary file next to the destination, moved into place when complete
    /// and removed on failure or cancellation. An existing destination is never replaced unless
    /// ``DownloadOptions/overwritesExisting`` is set. A transfer cut off by a lost connection or an
    /// idle timeout resumes with `Range` (up to ``DownloadOptions/resumeAttempts`` times); a server
    /// that answers `200` instead of `206` is read again from zero, never appended. A non-2xx
    /// status fails with ``APIError/Kind/unacceptableStatus(_:)`` and the server's error body.
    public func download(_ route: some Route, to destination: URL, options: DownloadOptions = DownloadOptions())
        -> Download
    {
        startDownload(route, target: .file(destination), options: options)
    }

    /// Downloads into `folder`, under the name the server suggests (`Content-Disposition`, else the
    /// URL's last component), made safe: `../../x` becomes `x`, `/etc/passwd` becomes `passwd`, an
    /// empty or hidden name becomes `download` or loses its leading dots.
    public func download(_ route: some Route, into folder: URL, options: DownloadOptions = DownloadOptions())
        -> Download
    {
        startDownload(route, target: .folder(folder), options: options)
    }

    private func startDownload(_ route: some Route, target: DownloadTarget, options: DownloadOptions) -> Download {
        let (progress, continuation) = AsyncStream.makeStream(
            of: DownloadProgress.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            defer { continuation.finish() }
            return try await performDownload(route, target: target, options: options) { continuation.yield($0) }
        }
        return Download(progress: progress, task: task)
    }

    private func performDownload(
        _ route: some Route,
        target: DownloadTarget,
        options: DownloadOptions,
        onProgress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> URL {
        var (request, temporaryBody) = try RequestBuilder.makeRequest(
            for: route, baseURL: base, defaultHeaders: headers, encoder: encoder
        )
        RequestBuilder.acceptAnyType(&request, route: route, clientHeaders: headers)
        if !options.overwritesExisting {
            // Before anything is sent: the named file, or the name the URL suggests in the folder.
            // The server's own suggestion is checked when its head arrives, before the body.
            let predicted = target.destination(for: nil, requestURL: request.url, namedByURL: true)
            if FileManager.default.fileExists(atPath: predicted.path) {
                if let temporaryBody { try? FileManager.default.removeItem(at: temporaryBody) }
                throw Self.existsError(predicted)
            }
        }
        // One deadline for the whole download, every resumption included.
        let timeout = request.timeout ?? options.timeout
        let deadline = ContinuousClock.now + timeout
        request.timeout = timeout
        defer {
            if let temporaryBody { try? FileManager.default.removeItem(at: temporaryBody) }
        }
        let temporary = target.folder.appendingPathComponent(".courier-\(UUID().uuidString).download")
        let requestURL = request.url
        let overwrites = options.overwritesExisting
        let writer = try FileDownloadWriter(
            file: temporary, maximumSize: options.maximumSize,
            checkHead: { head in
                let destination = target.destination(for: head, requestURL: requestURL)
                if !overwrites, FileManager.default.fileExists(atPath: destination.path) {
                    throw Self.existsError(destination)
                }
            }, onProgress: onProgress)
        defer {
            writer.close()
            try? FileManager.default.removeItem(at: temporary)
        }
        if try await needsDiskBuffering(request, writer: writer, maximumSize: options.maximumSize) {
            writer.didFallBehind()
        }
        // Interruptions in a row that gained less than the minimum; an attempt that moved forward
        // enough resets it.
        var fruitless = 0
        var resumptions = 0
        while true {
            let before = writer.progress.bytesReceived
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw RedirectLoop.timeoutError(request, timeout: timeout) }
            var attempt = writer.beginAttempt(request)
            attempt.timeout = remaining
            do {
                try await transfer(attempt, into: writer)
                break
            } catch let error as APIError where Self.isResumable(error) {
                try Task.checkCancellation()
                let gained = writer.progress.bytesReceived - before
                fruitless = gained >= options.minimumProgressPerAttempt ? 0 : fruitless + 1
                resumptions += 1
                guard fruitless <= options.resumeAttempts, resumptions <= options.maximumResumptions else {
                    throw error
                }
                // Back off before asking a struggling server again: 0.1 s, doubling, at most 5 s.
                let backoff = Duration.milliseconds(100 * (1 << min(max(fruitless - 1, 0), 6)))
                let pause = min(backoff, .seconds(5), deadline - ContinuousClock.now)
                if fruitless > 0, pause > .zero { try await Task.sleep(for: pause) }
            }
        }
        writer.close()
        let destination = target.destination(for: writer.acceptedHead, requestURL: request.url)
        return try Self.moveIntoPlace(temporary, to: destination, overwriting: options.overwritesExisting)
    }

    /// One attempt: the exchange through the middlewares with the body streamed into `writer`.
    private func transfer(_ request: HTTPRequest, into writer: FileDownloadWriter) async throws {
        let record = ExchangeRecord(request)
        let response = try await runChain(request, record: record, options: CallOptions(consumer: writer))
        guard writer.acceptedHead != nil else {
            let body = try? decoder.decode(ServerMessage.self, from: response.body)
            throw APIError(
                .unacceptableStatus(response.status), message: "the server answered \(response.status)",
                request: record.lastRequest, response: response, errorBody: body)
        }
        guard writer.isComplete else {
            throw APIError(
                .transport(.connectionLost),
                message:
                    "the body ended after \(writer.progress.bytesReceived) of \(writer.progress.bytesExpected ?? 0) bytes",
                request: record.lastRequest, response: response)
        }
    }

    /// Whether the transport must buffer the body on disk first (URLSession cannot slow the network
    /// down to the consumer's pace, so a large body streamed piece by piece would pile up in
    /// memory). A `HEAD` tells the size first: small bodies stream and resume byte for byte, larger
    /// ones go through the disk, and one over `maximumSize` is refused before the `GET`. A size
    /// unknown in advance goes through the disk too, unless the limit itself is small enough to
    /// stream (then the limit is checked on every piece as it arrives). Other transports stream
    /// everything.
    private func needsDiskBuffering(_ request: HTTPRequest, writer: FileDownloadWriter, maximumSize: Int64?)
        async throws -> Bool
    {
        guard let buffering = transport as? any HTTPDiskBufferingTransport, request.method == .get else {
            return false
        }
        var probe = request
        probe.method = .head
        guard let head = try? await runChain(probe, record: ExchangeRecord(probe)),
            (200..<300).contains(head.status.code),
            head.headers[.contentEncoding] == nil,
            let length = head.headers[.contentLength].flatMap({ Int64($0) })
        else { return (maximumSize ?? .max) > buffering.largestStreamedBody }
        try writer.checkAnnouncedLength(length)
        return length > buffering.largestStreamedBody
    }

    /// The destination exists and may not be replaced: refused before the request is sent, or (for a
    /// name the server suggests) as soon as its head arrives, before any of the body is read.
    private static func existsError(_ destination: URL) -> APIError {
        APIError(
            .invalidRequest,
            message:
                "\(destination.path) exists already and would be overwritten (set DownloadOptions.overwritesExisting)")
    }

    private static func isResumable(_ error: APIError) -> Bool {
        [.transport(.connectionLost), .transport(.timedOut)].contains(error.kind)
    }

    private static func moveIntoPlace(_ temporary: URL, to destination: URL, overwriting: Bool) throws -> URL {
        let manager = FileManager.default
        do {
            if overwriting {
                // rename(2) replaces the destination in one step; both are in the same folder.
                guard rename(temporary.path, destination.path) == 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
                }
            } else {
                try manager.moveItem(at: temporary, to: destination)
            }
            return destination
        } catch {
            let exists = manager.fileExists(atPath: destination.path)
            throw APIError(
                .invalidRequest,
                message: exists
                    ? "\(destination.path) exists already and would be overwritten"
                    : "could not move the download to \(destination.path): \(error.localizedDescription)",
                underlyingError: error)
        }
    }
}

/// Where a download goes: a named file, or a folder and the server's suggested name.
private enum DownloadTarget: Sendable {
    case file(URL)
    case folder(URL)

    var folder: URL {
        switch self {
        case .file(let file): file.deletingLastPathComponent()
        case .folder(let folder): folder
        }
    }

    /// Where the file goes: the named file, or the server's suggested name in the folder (the URL's,
    /// without a head or when `namedByURL`).
    func destination(for head: HTTPResponse?, requestURL: URL, namedByURL: Bool = false) -> URL {
        switch self {
        case .file(let file):
            return file
        case .folder(let folder):
            let head = namedByURL ? HTTPResponse(status: .ok, url: requestURL) : head
            let name = head.map { SuggestedFileName.name(for: $0, requestURL: requestURL) } ?? "download"
            return folder.appendingPathComponent(name, isDirectory: false)
        }
    }
}
