import Courier
import Foundation

/// Small JSON over TLS 1.3, HTTP/1.1 and HTTP/2, against nginx with a certificate signed by a test
/// CA: CurlTransport (trusting that CA) against libcurl driven from C with the same CA. The C
/// program is the baseline, so each ratio says how close Courier comes to it; "new TCP" counts the
/// connections nginx accepted in a round, each a full TLS handshake. URLSession on Linux cannot
/// trust a custom CA, so it has no row here.
func tlsScenarios(_ settings: Settings, scale: Int) -> [Scenario] {
    guard let tlsBase = settings.tlsBase, let http2Base = settings.http2Base, let authorities = settings.authorities
    else { return [] }
    let trust = CurlTransport.TLSOptions(certificateAuthorities: URL(fileURLWithPath: authorities))

    func implementations(_ base: URL) -> [Implementation] {
        let transport = CurlTransport(configuration: .init(tls: trust))
        let client = APIClient(baseURL: base, transport: transport)
        var list: [Implementation] = []
        if let ceiling = settings.ceiling {
            list.append(
                .program(
                    "libcurl from C (ceiling)", path: ceiling, url: base.appendingPathComponent("small.json"),
                    authorities: authorities))
        }
        list.append(
            .requests("Courier, CurlTransport", { _ = try await client.send(.get("small.json", as: Data.self)) }))
        list.append(
            .requests(
                "Courier, CurlTransport, callers on its executor", on: LoopExecutor(transport),
                { _ = try await client.send(.get("small.json", as: Data.self)) }))
        return list
    }

    return [
        Scenario(
            name: "GET small JSON, TLS 1.3 HTTP/1.1, sequential", count: 2_000 / scale, concurrency: 1,
            implementations: implementations(tlsBase)),
        Scenario(
            name: "GET small JSON, TLS 1.3 HTTP/1.1, 16 concurrent", count: 5_000 / scale, concurrency: 16,
            implementations: implementations(tlsBase)),
        Scenario(
            name: "GET small JSON, TLS 1.3 HTTP/2, sequential", count: 2_000 / scale, concurrency: 1,
            implementations: implementations(http2Base)),
        Scenario(
            name: "GET small JSON, TLS 1.3 HTTP/2, 16 concurrent", count: 5_000 / scale, concurrency: 16,
            implementations: implementations(http2Base)),
    ]
}
