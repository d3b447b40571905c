#if canImport(CCourierPSL)
    import CCourierPSL
#endif

/// The Public Suffix List (https://publicsuffix.org) as the cookie jar asks it: whether a domain is
/// a public suffix (`com`, `co.uk`, `github.io`: names under which unrelated parties register
/// their own), and a host's registrable domain (the suffix and one more label: its *site*).
///
/// Two sources answer the same questions: libpsl, loaded at run time where it is installed (every
/// Linux machine with Debian's libcurl), with the system's list; and the snapshot Courier carries
/// (``PublicSuffixSnapshot``, refreshed by `scripts/update-public-suffixes`). The system's list
/// may be older than the snapshot (Debian 12 ships the list of February 2023) or newer, so where
/// libpsl loads the jar asks both (``Source/union``): a domain is a public suffix when either
/// says so, and a registrable domain is the longest suffix either knows plus one label. Where
/// libpsl is missing (Apple platforms) the snapshot alone answers. Both read the ICANN and the private sections,
/// wildcards (`*.ck`), exceptions (`!www.ck`), and the implicit `*` rule: a top-level label that
/// is not listed is a suffix too. Domains are lowercase ASCII, IDNs in punycode, no trailing dot.
struct PublicSuffixList: Sendable {
    enum Source: Sendable, Hashable {
        case libpsl
        case snapshot
        /// libpsl and the snapshot together: the stricter answer of the two.
        case union
    }

    let source: Source

    /// libpsl and the snapshot together when libpsl loads, else the snapshot.
    static let shared = PublicSuffixList.libpsl != nil ? PublicSuffixList(source: .union) : .snapshot

    /// libpsl with the system's newest list; `nil` where it cannot be loaded.
    static let libpsl: PublicSuffixList? = {
        #if canImport(CCourierPSL)
            return ccourier_psl_load(nil, 0) == 0 ? PublicSuffixList(source: .libpsl) : nil
        #else
            return nil
        #endif
    }()

    /// The bundled snapshot.
    static let snapshot = PublicSuffixList(source: .snapshot)

    /// Whether `domain` is a public suffix.
    func isPublicSuffix(_ domain: String) -> Bool {
        switch source {
        case .libpsl:
            #if canImport(CCourierPSL)
                return ccourier_psl_is_public_suffix(domain) != 0
            #else
                return SnapshotRules.shared.publicSuffix(of: domain) == domain[...]
            #endif
        case .snapshot:
            return SnapshotRules.shared.publicSuffix(of: domain) == domain[...]
        case .union:
            return Self.snapshot.isPublicSuffix(domain) || Self.libpsl?.isPublicSuffix(domain) == true
        }
    }

    /// The public suffix plus one label; `nil` when `domain` is a public suffix itself.
    func registrableDomain(_ domain: String) -> String? {
        switch source {
        case .libpsl:
            #if canImport(CCourierPSL)
                var output = [CChar](repeating: 0, count: 512)
                guard ccourier_psl_registrable_domain(domain, &output, output.count) == 1 else { return nil }
                return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #else
                return SnapshotRules.shared.registrableDomain(domain)
            #endif
        case .snapshot:
            return SnapshotRules.shared.registrableDomain(domain)
        case .union:
            // Both are suffixes of `domain`: the longer one comes from the longer public suffix.
            guard let bundled = Self.snapshot.registrableDomain(domain) else { return nil }
            guard let libpsl = Self.libpsl else { return bundled }
            guard let system = libpsl.registrableDomain(domain) else { return nil }
            return system.utf8.count > bundled.utf8.count ? system : bundled
        }
    }
}

/// The snapshot's rules in three sets, looked up suffix by suffix (one hash look-up per label).
private struct SnapshotRules: Sendable {
    /// `name` rules.
    var exact: Set<Substring> = []
    /// `*.name` rules, by `name`.
    var wildcard: Set<Substring> = []
    /// `!name` rules, by `name`.
    var exception: Set<Substring> = []

    static let shared = SnapshotRules(PublicSuffixSnapshot.rules)

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("!") {
                exception.insert(line.dropFirst())
            } else if line.hasPrefix("*.") {
                wildcard.insert(line.dropFirst(2))
            } else {
                exact.insert(line)
            }
        }
    }

    /// The public suffix of `domain` by the list's algorithm: an exception prevails (the suffix is
    /// the exception less its first label); else the longest matching rule; else the last label.
    func publicSuffix(of domain: String) -> Substring {
        let whole = domain[...]
        // Every suffix that starts at a label, longest first.
        var suffixes: [Substring] = [whole]
        var index = whole.startIndex
        while let dot = whole[index...].firstIndex(of: ".") {
            index = whole.index(after: dot)
            suffixes.append(whole[index...])
        }
        for (position, suffix) in suffixes.enumerated() where exception.contains(suffix) {
            return position + 1 < suffixes.count ? suffixes[position + 1] : suffix
        }
        for (position, suffix) in suffixes.enumerated() {
            if exact.contains(suffix) { return suffix }
            if position + 1 < suffixes.count, wildcard.contains(suffixes[position + 1]) { return suffix }
        }
        return suffixes[suffixes.count - 1]
    }

    func registrableDomain(_ domain: String) -> String? {
        let suffix = publicSuffix(of: domain)
        guard suffix.startIndex > domain.startIndex else { return nil }
        let beforeDot = domain.index(before: suffix.startIndex)
        let start = domain[..<beforeDot].lastIndex(of: ".").map { domain.index(after: $0) } ?? domain.startIndex
        return String(domain[start...])
    }
}
