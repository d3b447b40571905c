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

    /// The header fields as `Name: value` lines, secret values replaced; URLs in `Location`,
    /// `Content-Location`, `Refresh` and `Link` have their secret query values and userinfo replaced.
    public func redact(_ headers: HTTPHeaders) -> [String] {
        headers.map { field in
            let hidden = field.isSensitive || additionalNames.contains(field.name.canonicalName)
            let value = hidden ? Self.placeholder : redactURLs(in: field)
            return "\(field.name.rawName): \(value)"
        }
    }

    private static let urlValuedHeaders: Set<HTTPHeaders.Name> = [.location, "Content-Location", "Refresh"]

    /// The value with the URLs it carries redacted: the whole value for `Location` and its kin,
    /// each `<…>` for `Link`.
    private func redactURLs(in field: HTTPHeaders.Field) -> String {
        if Self.urlValuedHeaders.contains(field.name) {
            return redactURLText(field.value)
        }
        guard field.name == "Link" else { return field.value }
        var result = ""
        var rest = Substring(field.value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            result += rest[...open] + redactURLText(String(rest[rest.index(after: open)..<close])) + ">"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// A URL (absolute or relative) as text, redacted; text that is no URL is kept as it is
    /// unless it has a query or userinfo, which are then hidden whole.
    private func redactURLText(_ text: String) -> String {
        guard text.contains("?") || text.contains("@") else { return text }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let url = URL(string: trimmed) { return Redaction.redact(url, extraNames: additionalNames) }
        return Self.placeholder
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
        } else if type.contains("multipart/form-data"), let boundary = Self.boundary(of: contentType ?? "") {
            shown = redactMultipart(text, boundary: boundary)
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

    /// Each part named like a secret has its content replaced (the part's headers stay).
    private func redactMultipart(_ text: String, boundary: String) -> String {
        let delimiter = "--" + boundary
        let parts = text.components(separatedBy: delimiter)
        return parts.enumerated().map { index, part in
            guard index > 0, let headEnd = part.range(of: "\r\n\r\n") else { return part }
            let head = part[..<headEnd.lowerBound]
            guard let name = Self.dispositionName(in: head), isSecret(name) else { return part }
            return head + "\r\n\r\n" + Self.placeholder + "\r\n"
        }
        .joined(separator: delimiter)
    }

    /// The `name` of a part's `Content-Disposition` (not its `filename`), percent-decoded.
    private static func dispositionName(in head: Substring) -> String? {
        var searchFrom = head.startIndex
        while let found = head.range(of: "name=\"", range: searchFrom..<head.endIndex) {
            searchFrom = found.upperBound
            if found.lowerBound > head.startIndex, head[head.index(before: found.lowerBound)].isLetter { continue }
            let rest = head[found.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            let name = String(rest[..<end])
            return name.removingPercentEncoding ?? name
        }
        return nil
    }

    /// The `boundary` parameter of a multipart media type, quotes removed.
    private static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
        }
        return nil
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
                // A secret name hides all it holds, an object or array included.
                result[key] = isSecret(key) ? Self.placeholder : redactJSONValue(item)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map(redactJSONValue)
        }
        return value
    }
}

// MARK: The rules Courier applies everywhere it prints a request

/// How Courier keeps secrets out of everything it prints: error descriptions, request
/// descriptions and (later) logs and cURL renderings.
enum Redaction {
    /// What stands in for a secret value.
    static let placeholder = "REDACTED"

    /// The words that make a header or query item name a credential.
    private static let secretWords: Set<String> = [
        "apikey", "auth", "authorization", "credential", "credentials", "jwt", "key", "passwd",
        "password", "pwd", "secret", "session", "sessionid", "sig", "signature", "token",
    ]

    /// Whether a header or query item name looks like it carries a credential: one of its words
    /// (split at `-`, `_`, `.`, spaces and lower-to-upper case changes) is a secret word, so
    /// `api_key`, `apiKey`, `X-Api-Key`, `access_token` and `X-Amz-Signature` are secret and
    /// `keyword` or `monkey` are not.
    static func isSecretName(_ name: String) -> Bool {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in name {
            if character == "-" || character == "_" || character == "." || character == " " || character == "[" {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase && previousWasLower {
                words.append(current)
                current = ""
            }
            previousWasLower = character.isLowercase || character.isNumber
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.contains { secretWords.contains($0.lowercased()) }
    }

    /// The names, lowercased, for `extraNames`.
    static func lowercased(_ names: Set<String>) -> Set<String> {
        names.isEmpty ? names : Set(names.map { $0.lowercased() })
    }

    /// The request's URL, redacted, with its own sensitive query items too.
    static func redact(urlOf request: HTTPRequest, extraNames: Set<String> = []) -> String {
        redact(request.url, extraNames: extraNames.union(lowercased(request.sensitiveQueryItems)))
    }

    /// Whether the request's query item of this name carries a credential: named like a secret,
    /// or named in ``HTTPRequest/sensitiveQueryItems`` (compared without case).
    static func isCredential(queryItem name: String, of request: HTTPRequest) -> Bool {
        Redactor.standard.isSecret(name)
            || request.sensitiveQueryItems.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The URL with its userinfo (a user name alone is often a token) and the values of secret
    /// query items (and of items named in `extraNames`, compared without case) replaced by the
    /// placeholder.
    static func redact(_ url: URL, extraNames: Set<String> = []) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "<unparseable URL>"
        }
        if components.percentEncodedUser != nil {
            components.percentEncodedUser = placeholder
        }
        if components.password != nil {
            components.percentEncodedPassword = placeholder
        }
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = query.split(separator: "&", omittingEmptySubsequences: false)
                .map { item in
                    guard let equals = item.firstIndex(of: "=") else { return String(item) }
                    let name = String(item[..<equals])
                    let decoded = name.removingPercentEncoding ?? name
                    guard isSecretName(decoded) || extraNames.contains(decoded.lowercased()) else {
                        return String(item)
                    }
                    return name + "=" + placeholder
                }
                .joined(separator: "&")
        }
        return components.string ?? "<unparseable URL>"
    }

    /// The text with every secret the request carries (sensitive header values, the credential part
    /// of `Authorization`, secret query values, the URL's password) replaced by the placeholder: a
    /// last line of defence for text that quotes the request, such as an underlying error's message.
    static func scrub(_ text: String, secretsOf request: HTTPRequest?, extraNames: Set<String> = []) -> String {
        guard let request else { return text }
        let extraNames = extraNames.union(lowercased(request.sensitiveQueryItems))
        var secrets: [String] = []
        for field in request.headers where field.isSensitive || extraNames.contains(field.name.canonicalName) {
            secrets.append(field.value)
            secrets += field.value.split(separator: " ").dropFirst().map(String.init)
        }
        if let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            secrets += components.password.map { [$0] } ?? []
            secrets += components.user.map { [$0] } ?? []
            secrets += components.percentEncodedUser.map { [$0] } ?? []
            let isSecret = { (name: String) in isSecretName(name) || extraNames.contains(name.lowercased()) }
            for item in components.queryItems ?? [] where isSecret(item.name) {
                if let value = item.value { secrets.append(value) }
            }
            for item in components.percentEncodedQueryItems ?? [] where isSecret(item.name) {
                if let value = item.value { secrets.append(value) }
            }
        }
        var scrubbed = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where secret.count >= 4 {
            scrubbed = scrubbed.replacingOccurrences(of: secret, with: placeholder)
        }
        return scrubbed
    }
}
