import Foundation

/// What `scripts/interop` started: the servers to test, those it could not run and why, and the
/// files they serve (`plan.json` in the script's temporary folder).
struct Plan: Decodable {
    /// One server (an origin, or a forward proxy) and how to reach it.
    struct Target: Decodable {
        /// `origin` or `proxy`.
        let kind: String
        let server: String
        let version: String
        /// `HTTP/1.1` or `HTTP/2`: what CurlTransport is asked to speak.
        let `protocol`: String
        /// An origin's base URL (`https://localhost:PORT`, `http+unix://…`).
        let base: String?
        /// The server's access log: each line `<connection> <protocol> <path?query> …`, or Caddy's JSON.
        let log: String
        let logFormat: String?
        /// What the server was configured to do besides serving files: `gzip`, `brotli`, `upload`.
        let features: [String]?
        /// A virtual host of the same server that requires a client certificate.
        let mtls: String?
        /// A proxy's URL, and the credentials it wants (if any).
        let proxy: String?
        let user: String?
        let password: String?

        func has(_ feature: String) -> Bool { features?.contains(feature) ?? false }
    }

    /// A server that is not in the matrix, and why.
    struct Unavailable: Decodable {
        let server: String
        let reason: String
    }

    let targets: [Target]
    let unavailable: [Unavailable]
    /// The folder the origins serve.
    let www: String
    /// The CA that signed every server certificate, and the folder of every certificate and key.
    let ca: String
    let certificates: String
    /// What the proxies are asked for: a plain-HTTP URL and an HTTPS one (through `CONNECT`).
    let proxiedHTTP: String
    let proxiedHTTPS: String

    static func load(_ path: String) throws -> Plan {
        try JSONDecoder().decode(Plan.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
