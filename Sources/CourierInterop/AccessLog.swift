import Foundation

/// A server's access log, read for the lines of one scenario (each request carries a marker in its
/// query): which connection served each request, and in which protocol.
struct AccessLog {
    struct Line: Equatable {
        /// The connection: its number (nginx, h2o), or the client's port (Apache, lighttpd, HAProxy, Caddy).
        let connection: String
        /// `HTTP/1.1`, `HTTP/2.0`, `HTTP/2`.
        let protocolName: String
        let text: String

        var isHTTP2: Bool { protocolName.hasPrefix("HTTP/2") }
    }

    let path: String
    /// `caddy` (JSON lines) or nil (`<connection> <protocol> <path?query> …`).
    let format: String?

    /// The lines that contain `marker`.
    func lines(containing marker: String) -> [Line] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .filter { $0.contains(marker) }
            .compactMap { parse(String($0)) }
    }

    /// Waits (10 s at most: some servers write their log after the response) until `count` lines
    /// contain `marker`, and returns them.
    func waitForLines(containing marker: String, count: Int) async -> [Line] {
        var found = lines(containing: marker)
        for _ in 0..<100 where found.count < count {
            try? await Task.sleep(for: .milliseconds(100))
            found = lines(containing: marker)
        }
        return found
    }

    /// Every line that contains `marker`, raw (for the proxies' logs, which have formats of their own).
    func rawLines(containing marker: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { $0.contains(marker) }
    }

    private func parse(_ text: String) -> Line? {
        if format == "caddy" {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let request = object["request"] as? [String: Any]
            else { return nil }
            let port = request["remote_port"].map { "\($0)" } ?? "?"
            return Line(connection: port, protocolName: request["proto"] as? String ?? "?", text: text)
        }
        let fields = text.split(separator: " ", maxSplits: 3)
        guard fields.count >= 3 else { return nil }
        return Line(connection: String(fields[0]), protocolName: String(fields[1]), text: text)
    }
}
