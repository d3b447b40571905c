import Foundation

/// Decides what is secret in a request or response and hides it: what Courier's logs, cURL
/// renderings and error descriptions use.
///
/// Always secret: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, headers named like
/// an API key or token (`X-Api-Key`, `X-Auth-Token`), headers marked sensitive
/// (``HTTPHeaders/Field/isMarkedSensitive``), URL passwords, and query items and body fields whose
/// name has a secret word in it (`key`, `api_key`, `access_token`, `signature`, `password`,
/// `secret`, …). Add your own names with ``additionalNames``.
///
/// ```swift
/// let redactor = Redactor(additionalNames: ["X-Tenant", "ssn"])
/// print(request.curlCommand(redactor: redactor))
/// ```
public struct Redactor: Sendable, Hashable {
    /// What replaces a secret value: `REDACTED`.
    public static let placeholder = Redaction.placeholder

    /// More header, query item and body field names to treat as secret, compared without case.
    public var additionalNames: Set<String> {
        didSet { additionalNames = Set(additionalNames.map { $0.lowercased() }) }
    }

    /// Creates a redactor that also hides `additionalNames`.
    public init(additionalNames: Set<String> = []) {
        self.additionalNames = Set(additionalNames.map { $0.lowercased() })
    }

    /// The default redactor.
    public static let standard = Redactor()

    /// Whether a header, query item or body field of this name carries a secret.
    public func isSecret(_ name: String) -> Bool {
        Redaction.isSecretName(name) || HTTPHeaders.Name(name).isSensitive
            || additionalNames.contains(name.lowercased())
    }

    /// The URL as text with its password and secret query values replaced.
    public func redact(_ url: URL) -> String {
        Redaction.redact(url, extraNames: additionalNames)
    }

    /// The header fields as `Name: value` lines, secret values replaced.
    public func redact(_ headers: HTTPHeaders) -> [String] {
        headers.map { field in
            let hidden = field.isSensitive || additionalNames.contains(field.name.canonicalName)
            return "\(field.name.rawName): \(hidden ? Self.placeholder : field.value)"
        }
    }

    /// The text with every secret value `request` carries replaced: for text that may quote the
    /// request, such as an error's description.
    public func scrub(_ text: String, secretsOf request: HTTPRequest) -> String {
        Redaction.scrub(text, secretsOf: request, extraNames: additionalNames)
    }

    /// A body as text for a log or a cURL command, at most `limit` bytes of it: secret fields of
    /// JSON and form bodies replaced, any secret of `request` scrubbed, binary bodies summarised.
    public func redact(body: Data, contentType: String?, limit: Int = 4096, secretsOf request: HTTPRequest? = nil)
        -> String
    {
        guard !body.isEmpty else { return "" }
        guard let text = String(data: body, encoding: .utf8), !text.contains("\0") else {
            return "<\(body.count) bytes of binary data>"
        }
        let type = contentType?.lowercased() ?? ""
        var shown: String
        if type.contains("x-www-form-urlencoded") {
            shown = redactForm(text)
        } else if type.contains("json") || text.first == "{" || text.first == "[" {
            shown = redactJSON(body) ?? text
        } else {
            shown = text
        }
        shown = Redaction.scrub(shown, secretsOf: request, extraNames: additionalNames)
        let bytes = Array(shown.utf8)
        guard bytes.count > limit else { return shown }
        let cut = String(decoding: bytes.prefix(max(0, limit)), as: UTF8.self)
        return "\(cut)… (\(bytes.count - limit) more bytes)"
    }

    private func redactForm(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { item in
            let parts = item.split(separator: "=", maxSplits: 1)
            guard let name = parts.first.map(String.init), parts.count == 2 else { return String(item) }
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
            return isSecret(decoded) ? "\(name)=\(Self.placeholder)" : String(item)
        }
        .joined(separator: "&")
    }

    private func redactJSON(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return nil
        }
        let redacted = redactJSONValue(object)
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
            )
        else { return nil }
        return String(data: data, encoding: .utf8)
    }

    private func redactJSONValue(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, item) in object {
                result[key] = isSecret(key) && !(item is [String: Any]) ? Self.placeholder : redactJSONValue(item)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map(redactJSONValue)
        }
        return value
    }
}
