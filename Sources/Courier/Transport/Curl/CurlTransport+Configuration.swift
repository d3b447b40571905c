import Foundation

extension CurlTransport {
    /// TLS settings, for origins (``Configuration/tls``) or an HTTPS proxy
    /// (``Configuration/proxyTLS``). Certificates are verified against the system's CA store by
    /// default, and nothing older than TLS 1.2 is spoken.
    public struct TLSOptions: Sendable, Hashable {
        /// Whether the server's certificate chain and host name are verified. Turn off only for a
        /// test server you control.
        public var verifiesCertificates: Bool
        /// A PEM file of CA certificates to trust instead of the system's store.
        public var certificateAuthorities: URL?
        /// Base64 SHA-256 hashes of the server's SubjectPublicKeyInfo; when not empty, a server whose
        /// key is none of them is refused with ``TransportFailure/tls``. Compute one with
        /// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der |
        /// openssl dgst -sha256 -binary | base64`.
        public var pinnedPublicKeyHashes: [String]
        /// The oldest TLS version accepted: a server that offers nothing newer is refused with
        /// ``TransportFailure/tls``. ``TLSVersion/tls12`` by default.
        public var minimumVersion: TLSVersion
        /// The certificate the transport shows a server that asks for one (mutual TLS), or `nil`.
        ///
        /// Its files are read for every new connection, and TLS sessions are not resumed while one
        /// is set: a certificate renewed on disk is shown from the next new connection on.
        ///
        /// A certificate or key that cannot be read, a key that does not match the certificate and
        /// a wrong passphrase fail every request with ``TransportFailure/clientCertificateRejected``
        /// saying which; so does a server that refuses the certificate (or wanted one and got none).
        public var clientCertificate: ClientCertificate?

        /// Creates TLS settings.
        public init(
            verifiesCertificates: Bool = true,
            certificateAuthorities: URL? = nil,
            pinnedPublicKeyHashes: [String] = [],
            minimumVersion: TLSVersion = .tls12,
            clientCertificate: ClientCertificate? = nil
        ) {
            self.verifiesCertificates = verifiesCertificates
            self.certificateAuthorities = certificateAuthorities
            self.pinnedPublicKeyHashes = pinnedPublicKeyHashes
            self.minimumVersion = minimumVersion
            self.clientCertificate = clientCertificate
        }
    }

    /// Which HTTP version the transport speaks.
    public enum HTTPVersion: Sendable, Hashable {
        /// HTTP/1.1 only.
        case http1
        /// HTTP/2 when an HTTPS server offers it (ALPN), HTTP/1.1 otherwise and over plain HTTP.
        case http2
        /// HTTP/2 from the first byte, with no HTTP/1.1 fallback: over plain HTTP this is `h2c`
        /// with prior knowledge (RFC 9113 §3.3), for services (gRPC-style back ends, sidecars)
        /// known to speak it. A server that does not speak HTTP/2 fails the request.
        case http2PriorKnowledge
    }

    /// The transport's settings.
    public struct Configuration: Sendable {
        /// The longest one exchange may take, redirects included, unless the request sets its own
        /// ``HTTPRequest/timeout``. 60 seconds by default.
        public var timeout: Duration
        /// The longest a connection may take to be made (TCP and TLS). 30 seconds by default.
        public var connectTimeout: Duration
        /// The longest an exchange may go without a byte moving. 60 seconds by default.
        public var idleTimeout: Duration
        /// How redirects are followed.
        public var redirects: RedirectPolicy
        /// The largest response body, after decompression, that is read into memory; a larger one
        /// fails with ``TransportFailure/responseTooLarge``. 100 MiB by default.
        public var maximumResponseSize: Int
        /// How many connections one host may have open at once; further requests wait for one
        /// (HTTP/2 requests share a connection). 16 by default. Shared among the ``loops``.
        public var maximumConnectionsPerHost: Int
        /// How many idle connections are kept for reuse, and easy handles pooled. 64 by default.
        /// Shared among the ``loops``.
        public var maximumConnections: Int
        /// How many exchanges are in libcurl's hands at once; further requests wait in order for a
        /// slot, their ``timeout`` running. 256 by default: a waiting request costs a few hundred
        /// bytes, one in libcurl's hands about 20 KB (its buffers). Shared among the ``loops``.
        public var maximumConcurrentTransfers: Int
        /// How many event loop threads the transport runs; requests are spread across them, each
        /// loop with its own connections. ``defaultLoops`` by default.
        public var loops: Int
        /// Which HTTP version is spoken. ``HTTPVersion/http2`` by default: HTTP/2 when an HTTPS
        /// server offers it.
        public var httpVersion: HTTPVersion
        /// TLS to origins: verification, custom CAs, pinning, the oldest version, a client
        /// certificate.
        public var tls: TLSOptions
        /// The proxy every request goes through, or `nil` to follow the environment (`http_proxy`,
        /// `https_proxy`, `all_proxy`, `no_proxy`), as curl does.
        ///
        /// - `http://proxy.example:3128`: plain HTTP is forwarded, HTTPS tunnelled with `CONNECT`.
        ///   The proxy's own reply to `CONNECT` never reaches the response: the origin's does.
        /// - `https://proxy.example:3129`: the same, over TLS to the proxy (see ``proxyTLS``).
        /// - `socks5://proxy.example:1080`: host names resolved here; `socks5h://`: resolved by
        ///   the proxy (use it when only the proxy can resolve the origin's name).
        ///
        /// Credentials may be in the URL (`http://user:password@proxy:3128`) or in
        /// ``proxyCredential``; they go to the proxy only, and no description shows them. A URL of
        /// another scheme (or without a host, or with port 0) fails every request at once with
        /// ``TransportFailure/other``, without a retry. A request's own `Proxy-*` headers
        /// (`Proxy-Authorization`) go to the proxy only (with `CONNECT`, or with a forwarded
        /// plain-HTTP request), never to the origin; without a proxy they are not sent.
        public var proxy: URL?
        /// The user and password for the proxy: Basic, Digest, NTLM or Negotiate, whichever the
        /// proxy asks for; user and password authentication (RFC 1929) for SOCKS5. It wins over
        /// credentials in the ``proxy`` URL. A proxy that refuses them when asked to open a tunnel
        /// (HTTPS through an HTTP proxy, `CONNECT`) or a SOCKS5 proxy fails the request with
        /// ``TransportFailure/proxyAuthenticationRequired``; a plain-HTTP request, which the proxy
        /// forwards, gets the proxy's `407 Proxy Authentication Required` as its response. SOCKS5
        /// takes at most 255 bytes each of user and password (RFC 1929): longer fails at once.
        public var proxyCredential: ProxyCredential?
        /// Hosts reached directly, not through the ``proxy``: names (`internal.example` also
        /// matches its subdomains), IP addresses (IPv6 with or without brackets: `::1`, `[::1]`),
        /// CIDR ranges (`10.0.0.0/8`, libcurl 7.86 or later), or `*` for every host (wherever it
        /// stands in the list). Empty by default: then the `no_proxy` environment variable, if
        /// set, decides, as curl does.
        public var noProxy: [String]
        /// TLS to an `https://` ``proxy`` itself (its CA, pinning, a client certificate); the
        /// origin's TLS is ``tls``.
        public var proxyTLS: TLSOptions
        /// Fixed addresses for host names, as curl's `--resolve`: `["api.example:443": "10.0.0.7"]`
        /// sends requests for `api.example` on port 443 to 10.0.0.7 without asking DNS, while TLS
        /// still checks the certificate against `api.example` (blue/green switches, tests). An
        /// IPv6 address goes in brackets: `"[::1]"`. Not used for requests that go through an
        /// HTTP or HTTPS ``proxy``: the proxy resolves the origin's name (it is used for `socks5://`).
        public var resolve: [String: String]
        /// How long a connection may sit idle and still be reused, rounded up to whole seconds: a
        /// connection idle that long or longer is closed, not reused (one idle a little less may
        /// be; libcurl counts whole seconds). Zero or less: no connection is reused, each request
        /// gets a new one, closed after it. `nil` for libcurl's default (118 seconds). Shorter than the server's or a load
        /// balancer's idle timeout avoids sending on a connection the other side is closing.
        public var maximumConnectionIdleTime: Duration?
        /// How long after it was opened a connection may still be reused (whole seconds, rounded
        /// up), however busy; `nil` for no limit. Spreads long-lived clients over new back ends
        /// after a DNS or load-balancer change. Needs libcurl 7.80 or later.
        public var maximumConnectionLifetime: Duration?

        /// Creates a configuration.
        public init(
            timeout: Duration = .seconds(60),
            connectTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(60),
            redirects: RedirectPolicy = .default,
            maximumResponseSize: Int = 100 * 1024 * 1024,
            maximumConnectionsPerHost: Int = 16,
            maximumConnections: Int = 64,
            maximumConcurrentTransfers: Int = 256,
            loops: Int = Configuration.defaultLoops,
            httpVersion: HTTPVersion = .http2,
            tls: TLSOptions = TLSOptions(),
            proxy: URL? = nil,
            proxyCredential: ProxyCredential? = nil,
            noProxy: [String] = [],
            proxyTLS: TLSOptions = TLSOptions(),
            resolve: [String: String] = [:],
            maximumConnectionIdleTime: Duration? = nil,
            maximumConnectionLifetime: Duration? = nil
        ) {
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.idleTimeout = idleTimeout
            self.redirects = redirects
            self.maximumResponseSize = maximumResponseSize
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.maximumConnections = maximumConnections
            self.maximumConcurrentTransfers = maximumConcurrentTransfers
            self.loops = loops
            self.httpVersion = httpVersion
            self.tls = tls
            self.proxy = proxy
            self.proxyCredential = proxyCredential
            self.noProxy = noProxy
            self.proxyTLS = proxyTLS
            self.resolve = resolve
            self.maximumConnectionIdleTime = maximumConnectionIdleTime
            self.maximumConnectionLifetime = maximumConnectionLifetime
        }

        /// Creates a configuration that says whether HTTP/2 is preferred.
        @available(*, deprecated, message: "use httpVersion: .http2 or .http1")
        public init(
            timeout: Duration = .seconds(60),
            connectTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(60),
            redirects: RedirectPolicy = .default,
            maximumResponseSize: Int = 100 * 1024 * 1024,
            maximumConnectionsPerHost: Int = 16,
            maximumConnections: Int = 64,
            maximumConcurrentTransfers: Int = 256,
            loops: Int = Configuration.defaultLoops,
            prefersHTTP2: Bool,
            tls: TLSOptions = TLSOptions(),
            proxy: URL? = nil
        ) {
            self.init(
                timeout: timeout, connectTimeout: connectTimeout, idleTimeout: idleTimeout, redirects: redirects,
                maximumResponseSize: maximumResponseSize, maximumConnectionsPerHost: maximumConnectionsPerHost,
                maximumConnections: maximumConnections, maximumConcurrentTransfers: maximumConcurrentTransfers,
                loops: loops, httpVersion: prefersHTTP2 ? .http2 : .http1, tls: tls, proxy: proxy)
        }

        /// Whether HTTPS uses HTTP/2 when the server offers it.
        @available(*, deprecated, message: "use httpVersion")
        public var prefersHTTP2: Bool {
            get { httpVersion != .http1 }
            set { httpVersion = newValue ? .http2 : .http1 }
        }

        /// One loop per two active processors, at least one: a loop thread does libcurl's work for
        /// its transfers, and the other processors run the callers' code (decoding above all) on
        /// the cooperative pool.
        public static var defaultLoops: Int {
            max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
        }
    }
}

extension CurlTransport.Configuration: CustomStringConvertible, CustomReflectable {
    /// The settings that differ from the defaults' kind, with the proxy's user information (in its
    /// URL), ``proxyCredential``'s password and any key passphrase hidden.
    public var description: String {
        var parts = [
            "timeout: \(DurationText.seconds(timeout))", "httpVersion: \(httpVersion)", "loops: \(loops)",
        ]
        if let proxy { parts.append("proxy: \(Self.redacted(proxy))") }
        if let proxyCredential { parts.append("proxyCredential: \(proxyCredential)") }
        if !noProxy.isEmpty { parts.append("noProxy: \(noProxy)") }
        if let certificate = tls.clientCertificate { parts.append("clientCertificate: \(certificate)") }
        if !resolve.isEmpty { parts.append("resolve: \(resolve.sorted { $0.key < $1.key })") }
        return "CurlTransport.Configuration(\(parts.joined(separator: ", ")))"
    }

    /// A mirror whose proxy URL has no user information, so `dump` and debuggers do not show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "timeout": timeout, "connectTimeout": connectTimeout, "idleTimeout": idleTimeout,
                "redirects": redirects, "maximumResponseSize": maximumResponseSize,
                "maximumConnectionsPerHost": maximumConnectionsPerHost, "maximumConnections": maximumConnections,
                "maximumConcurrentTransfers": maximumConcurrentTransfers, "loops": loops,
                "httpVersion": httpVersion, "tls": tls, "proxy": proxy.map(Self.redacted) as Any,
                "proxyCredential": proxyCredential as Any, "noProxy": noProxy, "proxyTLS": proxyTLS,
                "resolve": resolve, "maximumConnectionIdleTime": maximumConnectionIdleTime as Any,
                "maximumConnectionLifetime": maximumConnectionLifetime as Any,
            ], displayStyle: .struct)
    }

    /// The proxy URL with its user information (if any) replaced as a whole: a user name alone
    /// may be a secret too (an API token as the user).
    static func redacted(_ proxy: URL) -> String {
        guard var components = URLComponents(url: proxy, resolvingAgainstBaseURL: false) else {
            return "<proxy URL>"
        }
        guard components.user != nil || components.password != nil else { return proxy.absoluteString }
        components.user = Redactor.placeholder
        components.password = nil
        return components.string ?? "<proxy URL with credentials>"
    }
}
