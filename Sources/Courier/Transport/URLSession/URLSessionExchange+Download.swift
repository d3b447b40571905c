import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Download tasks: the body buffered on disk by URLSession (it cannot slow the network down to the
/// consumer's pace), watched for progress and size while it arrives, and handed to the consumer
/// from the file at the end.
extension URLSessionExchange {
    /// Reads a download task's byte count every 50 ms and reports it: FoundationNetworking's
    /// download-task progress cannot be relied on on Linux (it may never come), so a size limit
    /// checked only there may not fire while URLSession writes the whole body to its own file.
    /// The watch runs on a thread of its own, as the deadline does: Dispatch's shared threads can
    /// all be taken by URLSession's work. Download tasks are few (bodies over 16 MiB or of unknown
    /// size), so a thread each is affordable.
    func watchDownload(_ task: URLSessionTask) {
        let thread = Thread { [weak self, weak task] in
            while true {
                usleep(50_000)
                guard let self, let task, !self.hasFinished else { return }
                // This read waits for URLSession's own queue, which a flood of data can keep busy
                // for a while: the limit is then checked late, but no other work waits for it.
                let received = task.countOfBytesReceived
                guard received > 0 else { continue }
                if !self.offerDownloadHead(task.response) || !self.downloadProgressed(received) {
                    self.cancelTask()
                    return
                }
            }
        }
        thread.name = "Courier URLSession download watch"
        thread.start()
    }

    var hasFinished: Bool {
        state.withLock { $0.isFinished }
    }

    /// Offers the head of a download task's response to the consumer once it is known; `false`
    /// (and the exchange failed) when the consumer threw.
    func offerDownloadHead(_ response: URLResponse?) -> Bool {
        guard let http = response as? HTTPURLResponse else { return true }
        let offered = state.withLock { state in
            defer { state.headOffered = true }
            return state.headOffered
        }
        return offered ? true : receive(http)
    }

    /// Reports the bytes a download task has written so far; `false` (and the exchange failed)
    /// when the consumer refuses them (over its size limit).
    @discardableResult
    func downloadProgressed(_ total: Int64) -> Bool {
        // Before the head is known (URLSession on Linux gives it only at the end) the bytes are
        // the consumer's too: its limit must hold from the first byte.
        let streaming = state.withLock { ($0.isStreaming || !$0.headOffered) && !$0.isFinished }
        guard streaming, let consumer else { return true }
        return consumerAccepts { try consumer.bufferedBytesArrived(total) }
    }

    /// Moves a finished download task's file somewhere it survives the delegate call.
    func keepDownloadedFile(_ location: URL) {
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-\(UUID().uuidString).body")
        guard (try? FileManager.default.moveItem(at: location, to: kept)) != nil else { return }
        state.withLock { $0.downloadedFile = kept }
    }

    /// Hands a download task's file to the consumer (or reads it into the body), then finishes.
    func completeDownload(_ file: URL, response: HTTPURLResponse) {
        defer { try? FileManager.default.removeItem(at: file) }
        _ = offerDownloadHead(response)
        let streaming = state.withLock { $0.isStreaming }
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
                guard append(piece) else { return }
            }
        } catch {
            finish(
                .failure(
                    APIError(
                        .transport(.other), message: "reading the downloaded body failed: \(error)", request: request,
                        underlyingError: error)))
            return
        }
        let body = streaming ? Data() : state.withLock { $0.body }
        finish(.success(Self.makeResponse(response, body: body, request: request)))
    }
}
