import Foundation

extension HTTPResponse {
    /// The links of the response's `Link` header fields (RFC 8288) by relation type, relative
    /// references resolved against the response's URL: `links["next"]`, `links["last"]`.
    ///
    /// A link with several relation types (`rel="next last"`) is listed under each; the first link
    /// of a relation type wins.
    public var links: [String: URL] {
        var links: [String: URL] = [:]
        for value in headers.values(for: .link) {
            for link in Self.splitLinks(value) {
                guard let (target, relations) = Self.parseLink(link) else { continue }
                guard let url = URL(string: target, relativeTo: url)?.absoluteURL else { continue }
                for relation in relations where links[relation] == nil {
                    links[relation] = url
                }
            }
        }
        return links
    }

    /// Splits a field value at the commas between links, not those inside `<…>` or quotes.
    private static func splitLinks(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var inTarget = false
        var inQuotes = false
        for index in value.indices {
            switch value[index] {
            case "<" where !inQuotes: inTarget = true
            case ">" where !inQuotes: inTarget = false
            case "\"" where !inTarget: inQuotes.toggle()
            case "," where !inTarget && !inQuotes:
                parts.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
        }
        parts.append(value[start...])
        return parts
    }

    /// `<target>; rel="next last"; title="x"` → the target and its lowercased relation types.
    private static func parseLink(_ link: Substring) -> (String, [String])? {
        let trimmed = link.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("<"), let close = trimmed.firstIndex(of: ">") else { return nil }
        let target = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
        var relations: [String] = []
        for parameter in trimmed[trimmed.index(after: close)...].split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                continue
            }
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            relations += value.split(separator: " ").map { $0.lowercased() }
        }
        return relations.isEmpty ? nil : (target, relations)
    }
}
