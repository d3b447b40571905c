import Foundation

extension HTTPRequest {
    /// The request as a `curl` command line, secrets redacted unless `redactor` is `nil`.
    ///
    /// ```swift
    /// print(request.curlCommand())
    /// // curl -X POST 'https://api.example.com/v1/items?api_key=REDACTED' \
    /// //   -H 'Authorization: REDACTED' -H 'Content-Type: application/json' \
    /// //   --data-binary '{"name":"x"}'
    /// ```
    ///
    /// Text bodies up to `bodyLimit` bytes are included (their secret fields redacted too); file
    /// bodies become `--data-binary @path`; a stream body `--data-binary @-` (pipe it in; the stream
    /// itself is never read here); binary bodies are summarised.
    ///
    /// - Parameters:
    ///   - redactor: What to hide; `nil` prints every secret, for pasting into a terminal you own.
    ///   - bodyLimit: The most body bytes to include.
    public func curlCommand(redactor: Redactor? = .standard, bodyLimit: Int = 64 * 1024) -> String {
        var parts = ["curl"]
        if method == .head {
            parts.append("--head")
        } else if method != .get || body != nil {
            // With a body curl would switch to POST; name the method whenever it is not a plain GET.
            parts.append("-X \(Self.shellQuoted(method.rawValue))")
        }
        parts.append(
            Self.shellQuoted(
                redactor.map { Redaction.redact(urlOf: self, extraNames: $0.additionalNames) } ?? url.absoluteString))
        let headerLines = redactor.map { $0.redact(headers) } ?? headers.map { "\($0.name.rawName): \($0.value)" }
        parts += headerLines.map { "-H \(Self.shellQuoted($0))" }
        switch body {
        case .none:
            break
        case .file(let file):
            parts.append("--data-binary @\(Self.shellQuoted(file.path))")
        case .stream(let stream):
            // curl sends standard input chunked unless told its length.
            if let length = stream.length { parts.append("-H \(Self.shellQuoted("Content-Length: \(length)"))") }
            parts.append("--data-binary @-")
        case .data(let data):
            let text: String
            if let redactor {
                text = redactor.redact(
                    body: data, contentType: headers[.contentType], limit: bodyLimit, secretsOf: self
                )
            } else {
                text = String(data: data, encoding: .utf8) ?? "<\(data.count) bytes of binary data>"
            }
            if !text.isEmpty { parts.append("--data-binary \(Self.shellQuoted(text))") }
        }
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes, safe to paste into a POSIX shell.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
