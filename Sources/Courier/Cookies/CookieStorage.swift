import Foundation

/// The jar's cookies, indexed by *site* (the registrable domain of the host that set them, or the
/// host itself when it has none: an IP address, a public suffix), so storing and lookup touch one
/// site's cookies, not the whole jar. Not thread-safe: ``CookieJar`` keeps it in a lock.
///
/// Limits, as browsers keep them: at most ``CookieJar/Limits/maximumCookiesPerSite`` in a site,
/// evicting within that site (expired first, then the least recently used of the non-secure
/// cookies, then of the secure ones: RFC 6265bis §5.7), so that one site's cookies make room
/// for that site's own; at most ``CookieJar/Limits/maximumCookies`` in all, and past that the jar
/// purges down to nine tenths of it in one pass (expired first, then the least recently used of
/// the non-secure cookies, then of the secure ones), which keeps the cost of storing near-linear.
/// Under that global limit many sites together can still push out another site's cookies, as in
/// browsers. A cookie from a non-secure origin never evicts a `Secure` cookie: when the only room
/// left is a secure cookie's, the new cookie is refused instead.
struct CookieStorage {
    struct Entry {
        var cookie: Cookie
        var lastAccess: Date
        /// The order cookies were first stored in: the tie-break of equal creation times.
        var sequence: UInt64
    }

    private(set) var sites: [String: [Entry]] = [:]
    private(set) var count = 0
    private var nextSequence: UInt64 = 0
    let limits: CookieJar.Limits

    init(limits: CookieJar.Limits) {
        self.limits = limits
    }

    /// Stores (or, when expired, deletes) `cookie` in `site`; `false` when refused: a non-secure
    /// origin that would replace or shadow a `Secure` cookie (RFC 6265bis §5.7, "leave secure
    /// cookies alone": same name, overlapping domains, and the new path under the secure one's).
    mutating func store(_ cookie: Cookie, site: String, now: Date, fromSecureOrigin: Bool) -> Bool {
        var bucket = sites.removeValue(forKey: site) ?? []
        defer { if !bucket.isEmpty { sites[site] = bucket } }
        if !fromSecureOrigin {
            let shadows = bucket.contains { entry in
                entry.cookie.isSecure && entry.cookie.name == cookie.name
                    && (Self.domain(entry.cookie.domain, matches: cookie.domain)
                        || Self.domain(cookie.domain, matches: entry.cookie.domain))
                    && CookieRules.path(cookie.path, matches: entry.cookie.path)
            }
            if shadows { return false }
        }
        // RFC 6265bis §5.7: a cookie is the same one when name, domain, host-only flag and path agree,
        // so a sibling subdomain's `Domain` cookie neither replaces nor deletes a host-only one.
        let existing = bucket.firstIndex {
            $0.cookie.name == cookie.name && $0.cookie.domain == cookie.domain
                && $0.cookie.isHostOnly == cookie.isHostOnly && $0.cookie.path == cookie.path
        }
        if let expires = cookie.expires, expires <= now {
            if let existing {
                bucket.remove(at: existing)
                count -= 1
            }
            return true
        }
        if let existing {
            var replaced = cookie
            replaced.created = bucket[existing].cookie.created
            bucket[existing].cookie = replaced
            bucket[existing].lastAccess = now
            return true
        }
        let sequence = nextSequence
        bucket.append(Entry(cookie: cookie, lastAccess: now, sequence: sequence))
        nextSequence += 1
        count += 1
        while bucket.count > limits.maximumCookiesPerSite {
            let sparesSecure = !fromSecureOrigin
            guard let victim = Self.leastWorth(bucket, sparing: sequence, sparesSecure: sparesSecure, now: now) else {
                // Only secure cookies could make room, and a non-secure origin may not evict them.
                bucket.removeLast()
                count -= 1
                return false
            }
            bucket.remove(at: victim)
            count -= 1
        }
        if count > limits.maximumCookies {
            sites[site] = bucket
            purge(now: now, sparesSecure: !fromSecureOrigin)
            bucket = sites.removeValue(forKey: site) ?? []
            if count > limits.maximumCookies, let index = bucket.firstIndex(where: { $0.sequence == sequence }) {
                bucket.remove(at: index)
                count -= 1
            }
            return bucket.contains { $0.sequence == sequence }
        }
        return true
    }

    /// The cookies of `site` that go to `host` and `path`, in the order they are sent (longer
    /// paths first, then the earlier created), marked as used now.
    mutating func cookies(site: String, host: CookieHost, path: String, isSecure: Bool, now: Date) -> [Cookie] {
        guard var bucket = sites.removeValue(forKey: site) else { return [] }
        var matching: [Entry] = []
        for index in bucket.indices {
            let cookie = bucket[index].cookie
            guard (cookie.expires ?? .distantFuture) > now, !cookie.isSecure || isSecure,
                cookie.isHostOnly || host.isIPAddress ? host.name == cookie.domain : host.domainMatches(cookie.domain),
                CookieRules.path(path, matches: cookie.path)
            else { continue }
            bucket[index].lastAccess = now
            matching.append(bucket[index])
        }
        sites[site] = bucket
        return matching.sorted {
            let (left, right) = ($0.cookie.path.utf8.count, $1.cookie.path.utf8.count)
            if left != right { return left > right }
            if $0.cookie.created != $1.cookie.created { return $0.cookie.created < $1.cookie.created }
            return $0.sequence < $1.sequence
        }.map(\.cookie)
    }

    /// Every entry, in the order first stored.
    var entries: [(site: String, entry: Entry)] {
        sites.flatMap { site, bucket in bucket.map { (site, $0) } }.sorted { $0.entry.sequence < $1.entry.sequence }
    }

    /// Removes the entries with these sequence numbers whose cookie is still the one given.
    mutating func remove(_ doomed: [UInt64: Cookie]) {
        guard !doomed.isEmpty else { return }
        for site in Array(sites.keys) {
            var bucket = sites.removeValue(forKey: site) ?? []
            let before = bucket.count
            bucket.removeAll { doomed[$0.sequence] == $0.cookie }
            count -= before - bucket.count
            if !bucket.isEmpty { sites[site] = bucket }
        }
    }

    mutating func removeAll() {
        sites = [:]
        count = 0
    }

    /// The index of the entry to evict from a site, never the one just stored (`sparing`): an
    /// expired one, else the least recently used non-secure one, else (unless `sparesSecure`, for a
    /// non-secure origin) the least recently used secure one; `nil` when none may go.
    private static func leastWorth(_ bucket: [Entry], sparing sequence: UInt64, sparesSecure: Bool, now: Date) -> Int? {
        if let expired = bucket.firstIndex(where: { ($0.cookie.expires ?? .distantFuture) <= now }) { return expired }
        var oldest: [Bool: Int] = [:]
        for index in bucket.indices where bucket[index].sequence != sequence {
            let secure = bucket[index].cookie.isSecure
            if let current = oldest[secure], bucket[current].lastAccess <= bucket[index].lastAccess { continue }
            oldest[secure] = index
        }
        return oldest[false] ?? (sparesSecure ? nil : oldest[true])
    }

    /// Purges the whole jar down to nine tenths of its limit, in one sort; with `sparesSecure`
    /// (a non-secure origin stored last), unexpired secure cookies are left alone.
    private mutating func purge(now: Date, sparesSecure: Bool) {
        let target = limits.maximumCookies - limits.maximumCookies / 10
        let all = sites.values.joined().filter { entry in
            !sparesSecure || !entry.cookie.isSecure || (entry.cookie.expires ?? .distantFuture) <= now
        }.map { entry in
            (
                expired: (entry.cookie.expires ?? .distantFuture) <= now, secure: entry.cookie.isSecure,
                lastAccess: entry.lastAccess, sequence: entry.sequence
            )
        }
        let doomed = all.sorted { left, right in
            if left.expired != right.expired { return left.expired }
            if left.secure != right.secure { return !left.secure }
            if left.lastAccess != right.lastAccess { return left.lastAccess < right.lastAccess }
            return left.sequence < right.sequence
        }.prefix(max(0, count - target)).map(\.sequence)
        let set = Set(doomed)
        for site in Array(sites.keys) {
            var bucket = sites.removeValue(forKey: site) ?? []
            bucket.removeAll { set.contains($0.sequence) }
            if !bucket.isEmpty { sites[site] = bucket }
        }
        count -= set.count
    }

    /// §5.1.3 on canonical names: `host` is `domain` or ends in `.domain`.
    static func domain(_ host: String, matches domain: String) -> Bool {
        guard host != domain else { return true }
        let (hostBytes, domainBytes) = (host.utf8, domain.utf8)
        return hostBytes.count > domainBytes.count && hostBytes.reversed().starts(with: domainBytes.reversed())
            && hostBytes.dropLast(domainBytes.count).last == UInt8(ascii: ".")
    }
}
