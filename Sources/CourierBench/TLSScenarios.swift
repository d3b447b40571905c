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

    // One at a time (2,000 requests) and 16 in flight (5,000), over each protocol.
    let protocols = [("HTTP/1.1", tlsBase), ("HTTP/2", http2Base)]
    let loads = [("sequential", 2_000, 1), ("16 concurrent", 5_000, 16)]
    return protocols.flatMap { label, base in
        loads.map { load, count, concurrency in
            Scenario(
                name: "GET small JSON, TLS 1.3 \(label), \(load)", count: count / scale, concurrency: concurrency,
                implementations: implementations(base))
        }
    }
}
