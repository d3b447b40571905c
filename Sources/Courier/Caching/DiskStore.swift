import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes kept in files in one folder, under keys that never become paths: each file is named by the
/// SHA-256 of its key, so no key can escape the folder. Files are readable by their owner only,
/// written to a temporary file and renamed into place (a crash never leaves half an entry), and
/// swept least recently used first when the folder grows past its size limit.
package final class DiskStore: Sendable {
    /// The folder.
    package let directory: URL
    /// The most bytes the folder may hold; a sweep brings it down to 80% of this.
    package let sizeLimit: Int
    private let fileManager = FileManager()
    /// The folder's size as this store knows it, `nil` until first measured.
    private let knownSize = Locked<Int?>(nil)

    /// Why a folder cannot hold a cache.
    package struct UntrustedFolder: Error, CustomStringConvertible {
        package let description: String
    }

    /// Opens (creating it if needed, readable by its owner only) the folder.
    ///
    /// A folder someone else may have made first is not trusted: one that is a symbolic link or
    /// not owned by this process's user is refused with ``UntrustedFolder``; one of ours that
    /// group or others may write to is emptied (its entries may be forged) and closed to them.
    package init(directory: URL, sizeLimit: Int) throws {
        self.directory = directory
        self.sizeLimit = sizeLimit
        try fileManager.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        try secureFolder()
    }

    private func secureFolder() throws {
        var status = stat()
        guard lstat(directory.path, &status) == 0 else {
            throw UntrustedFolder(description: "the cache folder \(directory.path) cannot be examined")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw UntrustedFolder(description: "the cache folder \(directory.path) is not a directory (a link?)")
        }
        guard status.st_uid == geteuid() else {
            throw UntrustedFolder(
                description: "the cache folder \(directory.path) belongs to another user (uid \(status.st_uid))")
        }
        guard status.st_mode & 0o077 != 0 else { return }
        // Others could have written here: nothing in it can be trusted.
        guard chmod(directory.path, 0o700) == 0 else {
            throw UntrustedFolder(
                description: "the cache folder \(directory.path) is open to others and cannot be closed")
        }
        let files = (try? fileManager.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        for file in files { try? fileManager.removeItem(at: file) }
    }

    /// The file for `key`.
    package func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(SHA256.hexDigest(key), isDirectory: false)
    }

    /// The bytes stored under `key`, marking them recently used; `nil` when there are none.
    package func data(forKey key: String) -> Data? {
        let file = fileURL(forKey: key)
        guard let data = try? Data(contentsOf: file) else { return nil }
        try? fileManager.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        return data
    }

    /// Stores `data` under `key`, replacing what was there, then sweeps if the folder is too big.
    /// An entry larger than the whole limit is not stored.
    package func setData(_ data: Data, forKey key: String) {
        let file = fileURL(forKey: key)
        guard data.count <= sizeLimit else {
            removeData(forKey: key)
            return
        }
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).tmp", isDirectory: false)
        guard fileManager.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else { return }
        let previous = (try? fileManager.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard rename(temporary.path, file.path) == 0 else {
            try? fileManager.removeItem(at: temporary)
            return
        }
        let size = knownSize.withLock { size -> Int? in
            guard let known = size else { return nil }
            size = known - previous + data.count
            return size
        }
        if (size ?? measure()) > sizeLimit { sweep() }
    }

    /// Removes the entry under `key`.
    package func removeData(forKey key: String) {
        let file = fileURL(forKey: key)
        let size = (try? fileManager.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        if (try? fileManager.removeItem(at: file)) != nil {
            knownSize.withLock { known in known = known.map { $0 - size } }
        }
    }

    /// Removes every entry.
    package func removeAll() {
        for file in entries() { try? fileManager.removeItem(at: file.url) }
        knownSize.withLock { $0 = 0 }
    }

    /// The folder's current size in bytes.
    package var totalSize: Int { measure() }

    private struct Entry {
        let url: URL
        let size: Int
        let lastUsed: Date
    }

    private func entries() -> [Entry] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files = (try? fileManager.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
        return files.compactMap { url in
            guard let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return Entry(url: url, size: values.fileSize ?? 0, lastUsed: values.contentModificationDate ?? .distantPast)
        }
    }

    @discardableResult
    private func measure() -> Int {
        let size = entries().reduce(0) { $0 + $1.size }
        knownSize.withLock { $0 = size }
        return size
    }

    /// Deletes the least recently used files until the folder holds at most 80% of the limit.
    private func sweep() {
        var files = entries().sorted { $0.lastUsed < $1.lastUsed }
        var size = files.reduce(0) { $0 + $1.size }
        let target = sizeLimit / 10 * 8
        while size > target, !files.isEmpty {
            let oldest = files.removeFirst()
            if (try? fileManager.removeItem(at: oldest.url)) != nil { size -= oldest.size }
        }
        knownSize.withLock { $0 = size }
    }
}
