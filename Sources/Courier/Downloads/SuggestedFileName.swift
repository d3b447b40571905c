import Foundation

/// A file name a server suggests (`Content-Disposition`, or the URL's last component), made safe:
/// no folders, no `..`, no hidden or empty names, no control characters, at most 200 bytes.
enum SuggestedFileName {
    static func name(for response: HTTPResponse, requestURL: URL) -> String {
        let suggested = response.headers[.contentDisposition].flatMap(fileName(inDisposition:))
        return sanitised(suggested ?? "") ?? sanitised(requestURL.lastPathComponent) ?? "download"
    }

    /// The `filename*=UTF-8''…` or `filename="…"` parameter of a `Content-Disposition` value.
    static func fileName(inDisposition value: String) -> String? {
        var plain: String?
        for parameter in value.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            let name = pair[0].lowercased()
            let raw = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            if name == "filename*" {
                let parts = raw.components(separatedBy: "''")
                if parts.count == 2, let decoded = parts[1].removingPercentEncoding { return decoded }
            } else if name == "filename" {
                plain = raw
            }
        }
        return plain
    }

    /// `name` reduced to its last path component with anything unsafe removed, or `nil` when
    /// nothing usable is left.
    static func sanitised(_ name: String) -> String? {
        let lastComponent = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var cleaned = String(
            lastComponent.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) && $0 != ":" }
        )
        // Shortened first (from the front, keeping the extension), then made safe: shortening
        // after could uncover a leading dot or space.
        while cleaned.utf8.count > 200 { cleaned.removeFirst() }
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        while cleaned.hasPrefix(".") {
            cleaned.removeFirst()
            cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        }
        return cleaned.isEmpty ? nil : cleaned
    }
}
