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

        try file.replace(with: data)

        #expect(files.bytes(files.path) == data)
        #expect(files.names() == ["reading-list.json"])
    }

    @Test("a sync that fails after a slice leaves the old snapshot as it was and no temp file")
    func failedSliceSync() throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let file = SnapshotFile(path: files.path, faults: faults)
        let old: [UInt8] = Array("the old snapshot\n".utf8)
        try file.replace(with: old)
        faults.arm(.syncSlice)

        #expect(throws: StorageError.injected("syncSlice")) {
            try file.replace(with: [UInt8](repeating: 0x61, count: SnapshotFile.syncSliceBytes * 2 + 1))
        }

        #expect(files.bytes(files.path) == old)
        #expect(files.names() == ["reading-list.json"])
    }

    @Test("a directory sync that fails after the rename puts the old snapshot back byte for byte, copied over several slices; with no old one, the new one is removed")
    func failedDirectorySyncPutsTheOldOneBack() throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let file = SnapshotFile(path: files.path, faults: faults)
        faults.arm(.syncDirectory)
        #expect(throws: StorageError.injected("syncDirectory")) { try file.replace(with: Array("first\n".utf8)) }
        #expect(files.names() == [])
        let old = (0..<(SnapshotFile.syncSliceBytes * 2 + 5)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        try file.replace(with: old)
        faults.arm(.syncDirectory)

        #expect(throws: StorageError.injected("syncDirectory")) { try file.replace(with: Array("new\n".utf8)) }

        #expect(files.bytes(files.path) == old)
        #expect(files.names() == ["reading-list.json"])
    }
}
