import Foundation

extension APIError {
    /// One readable sentence: the method and redacted URL, then what went wrong.
    ///
    /// - `GET https://itunes.apple.com/search?term=x&media=y → 400 Bad Request: Invalid value(s) for key(s): [mediaType]`
    /// - `GET https://itunes.apple.com/search?term=x: decoding SearchPage failed at results[3].trackPrice: expected Double, found a string`
    /// - `GET http://127.0.0.1:8080/delay/5 failed (deadlineExceeded): no complete response within 0.5 seconds`
    public var description: String {
        let target = request.map { "\($0.method) \(Redaction.redact(urlOf: $0))" }
        let sentence: String
        switch kind {
        case .unacceptableStatus(let status):
            let detail = serverMessage ?? plainTextBody
            let head = "\(target ?? "the request") → \(status)"
            sentence = detail.map { "\(head): \($0)" } ?? head
        case .transport(let failure):
            sentence = "\(target ?? "the request") failed (\(failure)): \(message)"
        case .invalidRequest:
            sentence = "invalid request\(target.map { " \($0)" } ?? ""): \(message)"
        case .decoding, .authentication, .middleware, .cancelled, .unacceptableContentType:
            sentence = target.map { "\($0): \(message)" } ?? message
        }
        return Redaction.scrub(sentence, secretsOf: request)
    }

    /// A short plain-text body, for servers that answer errors in text rather than JSON.
    private var plainTextBody: String? {
        guard let response, !response.body.isEmpty, response.body.count <= 512,
            response.headers[.contentType]?.lowercased().hasPrefix("text/plain") ?? false,
            let text = String(data: response.body, encoding: .utf8)
        else { return nil }
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? nil : String(line.prefix(200))
    }
}
