import Courier
import Foundation
import Testing

@Suite("Disk store")
struct DiskStoreTests {
    private func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-disk-\(UUID().uuidString)")
    }

    @Test("survives a new store on the same folder; files are hash-named and owner-only")
    func persistence() throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try DiskStore(directory: directory, sizeLimit: 1 << 20).setData(Data("hello".utf8), forKey: "../../etc/passwd")

        let reopened = try DiskStore(directory: directory, sizeLimit: 1 << 20)

        #expect(reopened.data(forKey: "../../etc/passwd") == Data("hello".utf8))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 1)
        let name = try #require(files.first)
        #expect(name.count == 64 && name.allSatisfy(\.isHexDigit))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("a sweep removes the least recently used entries once the folder passes its limit")
    func sweep() throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskStore(directory: directory, sizeLimit: 10_000)
        let base = Date().addingTimeInterval(-1000)
        for index in 0..<4 {
            store.setData(Data(count: 2_000), forKey: "k\(index)")
            try FileManager.default.setAttributes(
                [.modificationDate: base.addingTimeInterval(Double(index))],
                ofItemAtPath: store.fileURL(forKey: "k\(index)").path
            )
        }
        _ = store.data(forKey: "k0")  // now the most recently used

        store.setData(Data(count: 3_000), forKey: "k4")

        #expect(store.totalSize <= 8_000)
        #expect(store.data(forKey: "k0") != nil && store.data(forKey: "k4") != nil)
        #expect(store.data(forKey: "k1") == nil)
    }

    @Test("an entry larger than the limit is not stored, and removes what was under its key")
    func oversized() throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskStore(directory: directory, sizeLimit: 100)
        store.setData(Data(count: 10), forKey: "k")

        store.setData(Data(count: 101), forKey: "k")

        #expect(store.data(forKey: "k") == nil)
    }
}
