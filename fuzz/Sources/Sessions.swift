import Foundation

@testable import Courier

/// Server-Sent Events: the same events whatever the piece boundaries (whole, byte at a time, cut
/// where the fuzzer says), and no id that a reconnection could not send back as a header value.
let serverSentEventsTarget = FuzzTarget(name: "sse") { input in
    guard let cut = input.first else { return }
    let bytes = Array(input.dropFirst())
    func events(_ pieces: [[UInt8]]) -> [ServerSentEvent]? {
        var parser = ServerSentEventParser(maximumEventSize: 1 << 16)
        var events: [ServerSentEvent] = []
        for piece in pieces {
            do { try parser.parse(Data(piece), into: &events) } catch { return nil }
        }
        for id in events.compactMap(\.id) + [parser.lastEventID]
        where id.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            violated("sse: id", "an id with a control character: \(id.debugDescription)")
        }
        return events
    }
    let split = min(bytes.count, Int(cut))
    let whole = events([bytes])
    let halves = events([Array(bytes[..<split]), Array(bytes[split...])])
    let single = events(bytes.map { [$0] })
    if whole != halves || whole != single {
        violated(
            "sse: pieces",
            "\(String(describing: whole)) vs \(String(describing: halves)) vs \(String(describing: single))")
    }
}

/// Set-Cookie and the jar: whatever is stored has a name, no control characters, fits the limits,
/// and domain-matches the host it came from.
let cookieTarget = FuzzTarget(name: "cookie") { input in
    var reader = FuzzReader(input)
    let hosts = ["a.example.com", "example.com", "127.0.0.1", "localhost"]
    let host = hosts[Int(reader.byte()) % hosts.count]
    let scheme = reader.byte() % 2 == 0 ? "https" : "http"
    let value = String(decoding: reader.rest(), as: UTF8.self)
    let jar = CookieJar(limits: .init(maximumCookieSize: 256, maximumCookiesPerDomain: 4, maximumCookies: 8))
    let url = URL(string: "\(scheme)://\(host)/a/b")!
    jar.store(from: HTTPResponse(status: .ok, headers: [.setCookie: value]), for: url)
    for cookie in jar.allCookies {
        let text = cookie.name + cookie.value
        if cookie.name.isEmpty
            || text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
            || text.utf8.count > 256
        {
            violated("cookie: stored safely", "\(cookie)")
        }
        if !(cookie.domain == host || (host.hasSuffix("." + cookie.domain) && !(CookieHost(host)?.isIPAddress ?? false))) {
            violated("cookie: domain-matches its host", "\(cookie.domain) from \(host)")
        }
        if cookie.isSecure, scheme != "https" { violated("cookie: Secure from http", "\(cookie)") }
    }
    if jar.allCookies.count > 8 { violated("cookie: the limit", "\(jar.allCookies.count)") }
}

/// Lines: the same lines whatever the piece boundaries.
let linesTarget = FuzzTarget(name: "lines") { input in
    guard let cut = input.first else { return }
    let bytes = Array(input.dropFirst())
    func lines(_ pieces: [[UInt8]]) -> [String]? {
        var splitter = LineSplitter(maximumLength: 1 << 16)
        var lines: [String] = []
        for piece in pieces {
            do { try splitter.split(Data(piece), into: &lines) } catch { return nil }
        }
        if let last = splitter.finish() { lines.append(last) }
        return lines
    }
    let split = min(bytes.count, Int(cut))
    if lines([bytes]) != lines([Array(bytes[..<split]), Array(bytes[split...])])
        || lines([bytes]) != lines(bytes.map { [$0] })
    {
        violated("lines: pieces")
    }
}
