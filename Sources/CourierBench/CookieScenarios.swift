import Courier
import Foundation

/// The cookie jar's storing and lookup, per cookie: each operation stores one cookie (20 a site,
/// the sites cycling) and reads the `Cookie` header for its URL; the jar starts over after `size`
/// cookies. Near-linear storage shows as the same rate for 300 and 3,000 cookies; the last row
/// keeps storing 6,000 into a jar of 3,000, which purges as it goes.
func cookieJarScenario(scale: Int) -> Scenario {
    func filling(_ size: Int) -> @Sendable () async throws -> Void {
        let state = Locked((jar: CookieJar(), count: 0))
        let urls = (0..<(size / 20 + 1)).map { URL(string: "https://www\($0).site\($0).example/app/page")! }
        return {
            let (jar, index) = state.withLock { state in
                if state.count % size == 0 { state.jar = CookieJar() }
                state.count += 1
                return (state.jar, state.count % size)
            }
            let url = urls[index / 20]
            jar.store(setCookie: "c\(index)=value\(index); Path=/app; Domain=site\(index / 20).example", from: url)
            _ = jar.cookieHeader(for: url)
        }
    }
    return Scenario(
        name: "cookie jar: store + read one cookie", count: 60_000 / scale, concurrency: 1,
        implementations: [
            .requests("jar of 300 cookies", filling(300)),
            .requests("jar of 3,000 cookies", filling(3_000)),
            .requests("6,000 into a jar of 3,000 (purging)", filling(6_000)),
        ])
}
