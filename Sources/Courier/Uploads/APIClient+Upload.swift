extension APIClient {
    /// Sends an endpoint whose body is worth watching (a photo, a video, a multipart form) and
    /// reports how much of the body has gone out, on every transport.
    ///
    /// ```swift
    /// let upload = client.upload(UploadVideo(file: movie))
    /// for await step in upload.progress { bar.update(step.fractionCompleted) }
    /// let receipt = try await upload.value()
    /// ```
    ///
    /// The call is otherwise exactly ``send(_:)``: the same middlewares, validation, decoding and
    /// errors. File bodies are read from disk as they are sent, so memory stays bounded.
    public func upload<E: Endpoint>(_ endpoint: E) -> Upload<E.Response> {
        let (progress, continuation) = AsyncStream.makeStream(
            of: UploadProgress.self, bufferingPolicy: .bufferingNewest(1))
        let meter = UploadMeter { continuation.yield($0) }
        let task = Task {
            defer { continuation.finish() }
            return try await response(for: endpoint, options: CallOptions(uploadMeter: meter)).value
        }
        return Upload(progress: progress, task: task)
    }

    /// Sends a route with a body, reports the body's progress, and decodes the response as `type`.
    public func upload<Value: Decodable & Sendable>(_ route: some Route, as type: Value.Type) -> Upload<Value> {
        upload(RouteEndpoint(route: route, as: type))
    }
}
