import Foundation
@testable import ShelfCore
import Testing

/// `SnapshotFile.replace`: the new bytes land whole, however many sync slices they take (protocol/STORAGE.md,
/// "Compaction"), and no temp file is left.
@Suite struct SnapshotFileTests {
    @Test("a snapshot of several sync slices, and one of exactly one, is written byte for byte", arguments: [
        SnapshotFile.syncSliceBytes * 2 + 123, SnapshotFile.syncSliceBytes, 1,
    ])
    func slicedWrite(count: Int) throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let file = SnapshotFile(path: files.path, faults: nil)
        let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }

        try file.replace(with: data) { nil }

        #expect(try file.read() == data)
        #expect(files.names() == ["reading-list.json"])
    }

    @Test("a sync that fails after a slice leaves the old snapshot as it was and no temp file")
    func failedSliceSync() throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let file = SnapshotFile(path: files.path, faults: faults)
        let old: [UInt8] = Array("the old snapshot\n".utf8)
        try file.replace(with: old) { nil }
        faults.arm(.syncSlice)

        #expect(throws: StorageError.injected("syncSlice")) {
            try file.replace(with: [UInt8](repeating: 0x61, count: SnapshotFile.syncSliceBytes * 2 + 1)) { old }
        }

        #expect(try file.read() == old)
        #expect(files.names() == ["reading-list.json"])
    }
}
