import Foundation

extension APIClient {
    /// Sends a route and returns as soon as the response head arrives, with the body to read as
    /// it comes: token-by-token answers, log tails, NDJSON exports, Server-Sent Events.
    ///
    /// ```swift
    /// let stream = try await client.stream(Export.all)
    /// for try await record in stream.jsonLines(as: Record.self) { try store.insert(record) }
    /// ```
    ///
    /// The request goes through the middlewares like any call: authentication, retries and logging
    /// act up to the head (a retry never happens once the head reached you); the response cache
    /// and deduplication never store or share a stream. A status outside the route's
    /// ``Route/acceptableStatuses`` throws ``APIError/Kind/unacceptableStatus(_:)`` before any body
    /// is handed over, with the server's error body (its first
    /// ``StreamOptions/maximumErrorBodySize`` bytes) decoded as the route's `ErrorBody`. Unless the route
    /// sets ``Route/timeout`` the stream has no overall deadline; the idle timeout applies.
    ///
    /// - Throws: ``APIError``, or `CancellationError` when the calling task is cancelled.
    public func stream<R: Route>(_ route: R, options: StreamOptions = StreamOptions()) async throws
        -> ResponseStream
    {
        try await openStream(route, errorBody: R.ErrorBody.self, options: options)
    }

    private func openStream<ErrorBody: ServerErrorBody>(
        _ route: some Route, errorBody: ErrorBody.Type, options: StreamOptions
    ) async throws -> ResponseStream {
        var (request, temporaryFile) = try RequestBuilder.makeRequest(
            for: route, baseURL: base, defaultHeaders: headers, encoder: encoder)
        if request.timeout == nil { request.timeout = StreamOptions.noDeadline }
        RequestBuilder.acceptAnyType(&request, route: route, clientHeaders: headers)
        let buffer = StreamBuffer(
            acceptableStatuses: route.acceptableStatuses, options: options, expectsBody: request.method != .head)
        let record = ExchangeRecord(request)
        let decoder = self.decoder
        let task = Task { [request] in
            defer {
                if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
            }
            do {
                let response = try await runChain(request, record: record, options: CallOptions(consumer: buffer))
                guard buffer.hasHandedOverHead else {
                    let failed = buffer.errorResponse ?? response
                    throw APIError(
                        .unacceptableStatus(failed.status), message: "the server answered \(failed.status)",
                        request: record.lastRequest, response: failed,
                        errorBody: try? decoder.decode(ErrorBody.self, from: failed.body))
                }
                buffer.finish(.success(()))
            } catch {
                buffer.finish(.failure(error))
            }
        }
        let running = StreamExchange(buffer: buffer, task: task)
        let head = try await withTaskCancellationHandler {
            try await buffer.head()
        } onCancel: {
            running.cancel()
        }
        let sent = record.lastRequest
        do {
            try ContentTypeCheck.verify(head, accepts: route.acceptableContentTypes, request: sent)
        } catch {
            running.cancel()
            throw error
        }
        return ResponseStream(response: head, request: sent, exchange: running, decoder: decoder)
    }
}

extension StreamOptions {
    /// The whole-exchange deadline of a stream whose route sets none: none to speak of (a century).
    static let noDeadline = Duration.seconds(100 * 365 * 24 * 3600)
}
