import Foundation

/// Where the response cache keeps responses: in memory, least recently used evicted first, and
/// optionally in a folder on disk that survives the process.
///
/// ```swift
/// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// let folder = caches.appendingPathComponent("com.example.app/api-cache")
/// let cache = try ResponseCache(configuration: .init(directory: folder))
/// let client = APIClient(baseURL: api, middlewares: [ResponseCacheMiddleware(cache: cache)])
/// ```
///
/// Unlike `URLCache` on Linux, it stores responses to requests with `Authorization` when a route
/// allows it (``CachePolicy/storesAuthenticatedResponses``), keyed by a hash of the credential so
/// one user's response is never served to another.
public final class ResponseCache: Sendable {
    /// Limits and where to keep responses on disk.
    public struct Configuration: Sendable {
        /// The most bytes of responses kept in memory.
        public var memoryCostLimit: Int
        /// The most responses kept in memory.
        public var memoryCountLimit: Int
        /// The folder for the disk tier, or `nil` for memory only.
        public var directory: URL?
        /// The most bytes the folder may hold.
        public var diskSizeLimit: Int
        /// Whether the cache serves several users (a server acting for its clients): then
        /// `Cache-Control: private` responses are not stored and `s-maxage` wins over `max-age`.
        public var isShared: Bool

        /// Creates a configuration.
        public init(
            memoryCostLimit: Int = 20 * 1024 * 1024,
            memoryCountLimit: Int = 1000,
            directory: URL? = nil,
            diskSizeLimit: Int = 100 * 1024 * 1024,
            isShared: Bool = false
        ) {
            self.memoryCostLimit = memoryCostLimit
            self.memoryCountLimit = memoryCountLimit
            self.directory = directory
            self.diskSizeLimit = diskSizeLimit
            self.isShared = isShared
        }
    }

    /// The limits and folder.
    public let configuration: Configuration
    /// The variants stored for each key (RFC 9111 §4.1), most recently stored first.
    private let memory: LRUCache<String, [CachedResponse]>
    private let disk: DiskStore?
    /// Held while the variants of a key are read, changed and saved, so two changes never interleave.
    private let updates = Locked(())

    /// The most variants (responses with different `Vary` values) kept for one URL.
    static let variantLimit = 8

    /// Creates a cache, creating its folder if there is one.
    ///
    /// Keep the folder in a per-user caches folder, never in a shared temporary directory. A folder
    /// that already exists is trusted only if this user owns it and nobody else can write to it:
    /// one open to others is emptied and closed; one owned by another user, or a symbolic link,
    /// is refused.
    ///
    /// - Throws: The file system's error when the folder cannot be created, or an error saying why
    ///   an existing folder is not trusted.
    public convenience init(configuration: Configuration) throws {
        let disk = try configuration.directory.map {
            try DiskStore(directory: $0, sizeLimit: configuration.diskSizeLimit)
        }
        self.init(configuration: configuration, disk: disk)
    }

    /// A cache in memory only.
    public convenience init(memoryCostLimit: Int = 20 * 1024 * 1024, memoryCountLimit: Int = 1000) {
        let configuration = Configuration(memoryCostLimit: memoryCostLimit, memoryCountLimit: memoryCountLimit)
        self.init(configuration: configuration, disk: nil)
    }

    private init(configuration: Configuration, disk: DiskStore?) {
        self.configuration = configuration
        self.memory = LRUCache(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        self.disk = disk
    }

    /// Forgets every stored response, in memory and on disk.
    public func removeAll() {
        memory.removeAll()
        disk?.removeAll()
    }

    /// The number of URLs (keys) with responses in memory.
    public var memoryCount: Int { memory.count }

    /// Every variant stored under `key`, most recently stored first.
    func variants(forKey key: String) -> [CachedResponse] {
        if let variants = memory.value(forKey: key) { return variants }
        guard let disk, let data = disk.data(forKey: key) else { return [] }
        guard let variants = Self.decode(data, key: key) else {
            disk.removeData(forKey: key)
            return []
        }
        memory.setValue(variants, forKey: key, cost: Self.cost(of: variants))
        return variants
    }

    /// The stored response `request` may be answered with (§4.1): the most recent variant whose
    /// `Vary` values match it.
    func entry(forKey key: String, matching request: HTTPRequest) -> CachedResponse? {
        variants(forKey: key).first { $0.matchesVary(of: request) }
    }

    /// Stores `entry` for `request`, replacing the variants that `request` would have selected.
    func store(_ entry: CachedResponse, forKey key: String, request: HTTPRequest) {
        updates.withLock { _ in
            let others = variants(forKey: key).filter { !$0.matchesVary(of: request) }
            save([entry] + others.prefix(Self.variantLimit - 1), forKey: key)
        }
    }

    /// Removes the variants `request` would have selected, keeping the others.
    func removeEntry(forKey key: String, matching request: HTTPRequest) {
        updates.withLock { _ in
            let all = variants(forKey: key)
            let others = all.filter { !$0.matchesVary(of: request) }
            if others.count != all.count { save(others, forKey: key) }
        }
    }

    /// Reads the variants stored under `key` now and saves what `change` makes of them, in one
    /// step no other change interleaves with; `change` returns `nil` to leave them as they are.
    func update<Result>(
        forKey key: String, _ change: (_ variants: [CachedResponse]) -> (variants: [CachedResponse], result: Result)?
    ) -> Result? {
        updates.withLock { _ in
            guard let (changed, result) = change(variants(forKey: key)) else { return nil }
            save(Array(changed.prefix(Self.variantLimit)), forKey: key)
            return result
        }
    }

    /// Removes every variant stored under `key`.
    func removeEntry(forKey key: String) {
        updates.withLock { _ in forget(key) }
    }

    private func forget(_ key: String) {
        memory.removeValue(forKey: key)
        disk?.removeData(forKey: key)
    }

    private func save(_ variants: [CachedResponse], forKey key: String) {
        guard !variants.isEmpty else { return forget(key) }
        memory.setValue(variants, forKey: key, cost: Self.cost(of: variants))
        if let disk, let data = Self.encode(variants, key: key) { disk.setData(data, forKey: key) }
    }

    private static func cost(of variants: [CachedResponse]) -> Int {
        variants.reduce(0) { $0 + $1.cost }
    }

    // MARK: On disk: a magic word, the number of variants, then each one's length and bytes.

    private static let magic = Data("CRV3".utf8)

    private static func encode(_ variants: [CachedResponse], key: String) -> Data? {
        var data = magic
        withUnsafeBytes(of: UInt32(variants.count).bigEndian) { data.append(contentsOf: $0) }
        for variant in variants {
            guard let bytes = variant.encoded(key: key) else { return nil }
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(bytes)
        }
        return data
    }

    private static func decode(_ data: Data, key: String) -> [CachedResponse]? {
        var offset = data.startIndex
        func readUInt32() -> Int? {
            guard data.endIndex - offset >= 4 else { return nil }
            defer { offset += 4 }
            return data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        guard data.count >= 8, data.prefix(4) == magic else { return nil }
        offset += 4
        guard let count = readUInt32(), (1...variantLimit).contains(count) else { return nil }
        var variants: [CachedResponse] = []
        for _ in 0..<count {
            guard let length = readUInt32(), length <= data.endIndex - offset,
                let variant = CachedResponse(encoded: Data(data[offset..<offset + length]), key: key)
            else { return nil }
            offset += length
            variants.append(variant)
        }
        return offset == data.endIndex ? variants : nil
    }
}
