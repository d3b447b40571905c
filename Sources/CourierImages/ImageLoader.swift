import Courier
import Foundation

/// Loads images by URL: from memory, else from disk, else from the network, and keeps them for
/// next time.
///
/// ```swift
/// let loader = try ImageLoader(configuration: .init(directory: cachesFolder.appendingPathComponent("images")))
/// let poster = try await loader.image(for: posterURL)
/// loader.prefetch(nextPagePosterURLs)
/// ```
///
/// - Memory: least recently used evicted first, by count and by bytes; hits are O(1).
/// - Disk (optional): one file per image named by the SHA-256 of its URL, owner-only, written
///   atomically, swept least recently used first past its size limit, kept across launches; a
///   damaged file is a miss and is removed.
/// - Network: concurrent loads of one URL make one download, which each caller may leave on its own
///   (it is cancelled only when the last one leaves); at most
///   `Configuration/maximumConcurrentDownloads` at a time; bodies over
///   `Configuration/maximumImageSize` stop with `responseTooLarge`; bytes that
///   are not an image fail with `decoding` and are never cached.
public final class ImageLoader: Sendable {
    /// Limits and where to keep images on disk.
    public struct Configuration: Sendable {
        /// The most bytes of images kept in memory.
        public var memoryCostLimit: Int
        /// The most images kept in memory.
        public var memoryCountLimit: Int
        /// The folder for the disk cache, or `nil` for memory only.
        public var directory: URL?
        /// The most bytes the folder may hold.
        public var diskSizeLimit: Int
        /// The largest image accepted, in bytes.
        public var maximumImageSize: Int
        /// How many downloads may run at once.
        public var maximumConcurrentDownloads: Int

        /// Creates a configuration.
        public init(
            memoryCostLimit: Int = 50 << 20, memoryCountLimit: Int = 300, directory: URL? = nil,
            diskSizeLimit: Int = 200 << 20, maximumImageSize: Int = 20 << 20, maximumConcurrentDownloads: Int = 6
        ) {
            self.memoryCostLimit = memoryCostLimit
            self.memoryCountLimit = memoryCountLimit
            self.directory = directory
            self.diskSizeLimit = diskSizeLimit
            self.maximumImageSize = maximumImageSize
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
        }
    }

    /// The limits and folder.
    public let configuration: Configuration
    private let client: APIClient
    private let memory: LRUCache<URL, ImageData>
    private let disk: DiskStore?
    private let downloads = Coalescer<URL, ImageData>()
    /// At most `maximumConcurrentDownloads` downloads at a time; a cancelled waiter leaves at once.
    private let slots: AdmissionGate
    /// Progress callbacks of the callers waiting for each URL, and the next callback's id.
    private let progressQueue = DispatchQueue(label: "Courier.ImageLoader.progress")
    private let observers = Locked((byURL: [URL: [UInt64: @Sendable (DownloadProgress) -> Void]](), nextID: UInt64(0)))

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - client: Sends the downloads (its middlewares apply; its base URL is not used). A client
    ///     over a default `URLSessionTransport` unless given.
    ///   - configuration: Limits and the disk folder (a per-user caches folder: one that another
    ///     user owns is refused, one open to others emptied and closed, as for `ResponseCache`).
    /// - Throws: The file system's error when the folder cannot be created, or why an existing
    ///   folder is not trusted.
    public init(
        client: APIClient = APIClient(baseURL: URL(string: "https://images.invalid")!),
        configuration: Configuration = Configuration()
    ) throws {
        self.client = client
        self.configuration = configuration
        memory = LRUCache(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        disk = try configuration.directory.map { try DiskStore(directory: $0, sizeLimit: configuration.diskSizeLimit) }
        slots = AdmissionGate(limit: configuration.maximumConcurrentDownloads)
    }

    /// The image at `url`, from memory, disk or the network.
    ///
    /// - Parameters:
    ///   - url: The image's absolute URL.
    ///   - progress: Told how the download goes, when there is one (shared downloads report to
    ///     every caller).
    /// - Throws: `APIError`, or `CancellationError` when the calling task is cancelled.
    public func image(for url: URL, progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws
        -> ImageData
    {
        if let image = memory.value(forKey: url) { return image }
        if let image = diskImage(for: url) {
            memory.setValue(image, forKey: url, cost: image.data.count)
            return image
        }
        let observer = progress.map { observe(url, $0) }
        defer { if let observer { stopObserving(url, observer) } }
        return try await downloads.value(for: url) { [self] in try await download(url) }
    }

    /// The image at `url` if it is in memory, without waiting.
    public func cachedImage(for url: URL) -> ImageData? {
        memory.value(forKey: url)
    }

    /// Loads `urls` into the caches at low priority, one download slot at a time each; cancel the
    /// returned task to stop.
    @discardableResult
    public func prefetch(_ urls: [URL]) -> Task<Void, Never> {
        Task(priority: .low) { [self] in
            await withTaskGroup(of: Void.self) { group in
                for url in urls {
                    group.addTask(priority: .low) { _ = try? await self.image(for: url) }
                }
            }
        }
    }

    /// Forgets every image, in memory and on disk.
    public func removeAll() {
        memory.removeAll()
        disk?.removeAll()
    }

    private func diskImage(for url: URL) -> ImageData? {
        guard let disk, let data = disk.data(forKey: url.absoluteString) else { return nil }
        guard let image = try? ImageData(data: data) else {
            disk.removeData(forKey: url.absoluteString)
            return nil
        }
        return image
    }

    private func download(_ url: URL) async throws -> ImageData {
        try Task.checkCancellation()
        try await slots.enter(deadline: nil)
        defer { slots.leave() }
        let collector = ImageBodyCollector(limit: configuration.maximumImageSize) { [self] progress in
            report(progress, for: url)
        }
        let request = Request(path: "", headers: [.accept: "image/*"], baseURL: url, as: Data.self)
            .policies(requiresAuthentication: false)
        let response: APIResponse<Data>
        do {
            response = try await client.response(for: request, options: CallOptions(consumer: collector))
        } catch let error as APIError {
            // An error status's body was streamed to the collector, capped: attach what it kept.
            guard case .unacceptableStatus = error.kind, var errorResponse = error.response,
                errorResponse.body.isEmpty
            else { throw error }
            errorResponse.body = collector.errorBody
            throw APIError(
                error.kind, message: error.message, request: error.request, response: errorResponse,
                underlyingError: error.underlyingError)
        }
        let body = response.response.body.isEmpty ? collector.body : response.response.body
        do {
            let image = try ImageData(data: body)
            memory.setValue(image, forKey: url, cost: image.data.count)
            disk?.setData(image.data, forKey: url.absoluteString)
            return image
        } catch let error as APIError {
            throw error.attaching(request: response.request, response: response.response)
        }
    }

    private func observe(_ url: URL, _ callback: @escaping @Sendable (DownloadProgress) -> Void) -> UInt64 {
        observers.withLock { observers in
            observers.nextID += 1
            observers.byURL[url, default: [:]][observers.nextID] = callback
            return observers.nextID
        }
    }

    private func stopObserving(_ url: URL, _ id: UInt64) {
        observers.withLock { observers in
            observers.byURL[url]?[id] = nil
            if observers.byURL[url]?.isEmpty == true { observers.byURL[url] = nil }
        }
    }

    /// Hands the progress to the callers' callbacks on the loader's own queue, in order: the
    /// collector runs on the transport's thread (CurlTransport's event loop), where a slow
    /// callback would hold up every other transfer.
    private func report(_ progress: DownloadProgress, for url: URL) {
        let callbacks = observers.withLock { Array(($0.byURL[url] ?? [:]).values) }
        guard !callbacks.isEmpty else { return }
        progressQueue.async {
            for callback in callbacks { callback(progress) }
        }
    }
}
