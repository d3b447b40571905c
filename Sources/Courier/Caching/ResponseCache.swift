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
    private let memory: LRUCache<String, CachedResponse>
    private let disk: DiskStore?

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

    /// The number of responses in memory.
    public var memoryCount: Int { memory.count }

    func entry(forKey key: String) -> CachedResponse? {
        if let entry = memory.value(forKey: key) { return entry }
        guard let disk, let data = disk.data(forKey: key) else { return nil }
        guard let entry = CachedResponse(encoded: data, key: key) else {
            disk.removeData(forKey: key)
            return nil
        }
        memory.setValue(entry, forKey: key, cost: entry.cost)
        return entry
    }

    func store(_ entry: CachedResponse, forKey key: String) {
        memory.setValue(entry, forKey: key, cost: entry.cost)
        if let disk, let data = entry.encoded(key: key) { disk.setData(data, forKey: key) }
    }

    func removeEntry(forKey key: String) {
        memory.removeValue(forKey: key)
        disk?.removeData(forKey: key)
    }
}
