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
}
