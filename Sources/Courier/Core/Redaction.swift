import Foundation

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
