import Foundation
import ShelfCore
import Testing

/// `FileListStore`: loading, refusing bad files without touching them, atomic replacement, restart.
/// Each test works in a fresh directory under the system temp directory and removes it at the end.
struct FileListStoreTests {
    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// The names in `dir`, sorted.
    private func names(_ dir: TempDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? []).sorted()
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func addCommit(_ n: UInt64, _ title: String, base: Revision) -> StoreCommit {
        let added = item(n, title, revision: base + 1)
        return StoreCommit(generation: 0, base: base, changes: [RevisionedChange(revision: base + 1, change: .added(added))])
    }

    @Test("a missing file loads as an empty list at revision 0 and its parent directories are created")
    func missingFile() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("nested/deeper/reading-list.json")
        let store = FileListStore(path: path)

        let loaded = try await store.load()

        #expect(loaded == ListSnapshot())
        #expect(store.path == path)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: dir.path("nested/deeper"), isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(!exists(path))
    }

    @Test("commits are durable: a new store on the same path loads the same list and revision")
    func restart() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let store = FileListStore(path: path)
        _ = try await store.load()

        try await commit(store, addCommit(1, "One", base: 0)).get()
        try await commit(store, addCommit(2, "Two", base: 1)).get()
        var read = item(1, "One", isRead: true, revision: 3)
        read.isRead = true
        try await commit(store, StoreCommit(generation: 0, base: 2, changes: [
            RevisionedChange(revision: 3, change: .updated(read)),
            RevisionedChange(revision: 4, change: .removed(SequentialIDs.id(2))),
        ])).get()

        let reloaded = try await FileListStore(path: path).load()
        #expect(reloaded == (try snapshot(revision: 4, [read])))
    }

    @Test("the file is one JSON object with format 1")
    func fileShape() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let store = FileListStore(path: path)
        _ = try await store.load()

        try await commit(store, addCommit(1, "One", base: 0)).get()

        let data = try #require(bytes(path))
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text.contains(#""format":1"#))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? Int == 1)
        #expect(object["revision"] as? Int == 1)
        #expect((object["items"] as? [[String: Any]])?.first?["title"] as? String == "One")
        #expect((object["items"] as? [[String: Any]])?.first?["addedAt"] as? String == FixedClock.startText)
    }

    @Test("several commits enqueued back to back are all stored, in order")
    func queuedCommits() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let store = FileListStore(path: path)
        _ = try await store.load()

        let results = await commitAll(store, [
            addCommit(1, "One", base: 0), addCommit(2, "Two", base: 1), addCommit(3, "Three", base: 2),
        ])

        #expect(results.map { $0.error } == [nil, nil, nil])

        let reloaded = try await FileListStore(path: path).load()
        #expect(reloaded.revision == 3)
        #expect(reloaded.items.items.map(\.title) == ["One", "Two", "Three"])
    }

    @Test("a commit on the wrong base is refused and the file is untouched")
    func baseMismatch() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let store = FileListStore(path: path)
        _ = try await store.load()
        try await commit(store, addCommit(1, "One", base: 0)).get()
        let before = try #require(bytes(path))

        let result = await commit(store, addCommit(2, "Two", base: 5))

        #expect(throws: StorageError.baseMismatch(expected: 5, actual: 1)) { try result.get() }
        #expect(bytes(path) == before)
    }

    @Test("a commit before load is refused")
    func commitBeforeLoad() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let store = FileListStore(path: path)

        let result = await commit(store, addCommit(1, "One", base: 0))

        #expect(throws: StorageError.corrupt(path: path, reason: "commit before load")) { try result.get() }
        #expect(!exists(path))
    }

    @Test("a file that is not JSON is refused as corrupt, naming the path, and left untouched")
    func corruptJSON() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        try write(#"{"format":1,"revision":3,"items":[{"id":"#, to: path)
        let before = try #require(bytes(path))

        let error = try #require(await loadResult(FileListStore(path: path)).error)

        guard case .corrupt(let errorPath, _) = error else {
            Issue.record("expected .corrupt, got \(error)")
            return
        }
        #expect(errorPath == path)
        #expect(error.description.contains(path))
        #expect(bytes(path) == before)
        #expect(names(dir) == ["reading-list.json"])
    }

    @Test("a file with two items of the same id is refused as duplicateID and left untouched")
    func duplicateIDs() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let stored = #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#
        try write(#"{"format":1,"revision":2,"items":[\#(stored),\#(stored)]}"#, to: path)
        let before = try #require(bytes(path))

        let error = await loadResult(FileListStore(path: path)).error

        #expect(error == .duplicateID(path: path, id: "00000000-0000-0000-0000-000000000001"))
        #expect(bytes(path) == before)
        #expect(names(dir) == ["reading-list.json"])
    }

    @Test("a file with an unknown format is refused as unknownFormat and left untouched")
    func unknownFormat() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        try write(#"{"format":99,"revision":1,"items":[],"journal":"elsewhere"}"#, to: path)
        let before = try #require(bytes(path))

        let error = await loadResult(FileListStore(path: path)).error

        #expect(error == .unknownFormat(path: path, format: 99))
        #expect(bytes(path) == before)
        #expect(names(dir) == ["reading-list.json"])
    }

    @Test("a file with a bad item is refused as corrupt and left untouched", arguments: [
        #"{"id":"not-a-uuid","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","title":"","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","title":"A\u0000","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":2}"#,
    ])
    func badItem(json: String) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        try write(#"{"format":1,"revision":1,"items":[\#(json)]}"#, to: path)
        let before = try #require(bytes(path))

        let error = try #require(await loadResult(FileListStore(path: path)).error)

        guard case .corrupt(let errorPath, _) = error else {
            Issue.record("expected .corrupt, got \(error)")
            return
        }
        #expect(errorPath == path)
        #expect(bytes(path) == before)
    }

    @Test("a leftover temp file is removed by load and does not affect the list")
    func leftoverTemp() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let temp = dir.path(".reading-list.json.tmp")
        let store = FileListStore(path: path)
        _ = try await store.load()
        try await commit(store, addCommit(1, "One", base: 0)).get()
        try write(#"{"format":1,"revision":9,"items":[]}"#, to: temp)

        let reloaded = try await FileListStore(path: path).load()

        #expect(reloaded.revision == 1)
        #expect(reloaded.items.items.map(\.title) == ["One"])
        #expect(!exists(temp))
    }

    @Test("a leftover temp file without a snapshot is removed and the list is empty")
    func leftoverTempOnly() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let temp = dir.path(".reading-list.json.tmp")
        try write("{half a wri", to: temp)

        let loaded = try await FileListStore(path: path).load()

        #expect(loaded == ListSnapshot())
        #expect(!exists(temp))
        #expect(!exists(path))
    }

    @Test("a failed replacement answers storageFailed, keeps the old file, leaves no temp file, and the next commit works",
          arguments: FileFaults.Step.allCases)
    func failedReplacement(step: FileFaults.Step) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let temp = dir.path(".reading-list.json.tmp")
        let faults = FileFaults()
        let store = FileListStore(path: path, faults: faults)
        let list = try await makeList(store: store)
        let first = try await list.apply(.add(title: "One"))
        let before = try #require(bytes(path))
        let snapshotBefore = await list.snapshot()

        faults.arm(step)
        let error = (await outcome(list, .add(title: "Two"))).error

        #expect(error == .storageFailed(.injected(step.rawValue)))
        #expect(bytes(path) == before)
        #expect(!exists(temp))
        #expect(await list.snapshot() == snapshotBefore)

        let third = try await list.apply(.add(title: "Three"))
        #expect(third.revision == 2)
        let reloaded = try await FileListStore(path: path).load()
        #expect(reloaded.revision == 2)
        #expect(reloaded.items.items.map(\.id) == [first.id, third.id])
        #expect(reloaded == (await list.snapshot()))
        #expect(!exists(temp))
    }

    @Test("a failed first commit leaves no file behind, and the next commit creates it",
          arguments: FileFaults.Step.allCases)
    func failedFirstCommit(step: FileFaults.Step) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let faults = FileFaults()
        let store = FileListStore(path: path, faults: faults)
        _ = try await store.load()

        faults.arm(step)
        let result = await commit(store, addCommit(1, "One", base: 0))

        #expect(result.error == .injected(step.rawValue))
        #expect(!exists(path))
        #expect(!exists(dir.path(".reading-list.json.tmp")))
        try await commit(store, addCommit(1, "One", base: 0)).get()
        #expect(try await FileListStore(path: path).load().items.items.map(\.title) == ["One"])
    }

    @Test("a fault armed twice fails two commits in a row, then commits work again")
    func repeatedFault() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("reading-list.json")
        let faults = FileFaults()
        let store = FileListStore(path: path, faults: faults)
        _ = try await store.load()

        faults.arm(.fsync, times: 2)
        await #expect(throws: StorageError.injected("fsync")) { try await commit(store, addCommit(1, "One", base: 0)).get() }
        await #expect(throws: StorageError.injected("fsync")) { try await commit(store, addCommit(1, "One", base: 0)).get() }
        #expect(!exists(path))

        try await commit(store, addCommit(1, "One", base: 0)).get()
        #expect(try await FileListStore(path: path).load().revision == 1)
    }

    @Test("a reading list over the file store reloads to the identical snapshot, addedAt to the millisecond")
    func readingListRestart() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("data/reading-list.json")
        let clock = FixedClock()
        let list = try await makeList(store: FileListStore(path: path), clock: clock)
        var added: [UUID] = []
        for n in 0..<25 {
            added.append(try await list.apply(.add(title: "Book \(n)")).id)
            clock.advance(by: 3_600.037_3)
        }
        _ = try await list.apply(.toggle(id: added[3]))
        _ = try await list.apply(.rename(id: added[4], title: "  Renamed  "))
        _ = try await list.apply(.remove(id: added[0]))
        _ = try await list.apply(.remove(id: added[10]))
        let final = await list.snapshot()
        #expect(final.revision == 29)
        #expect(final.items.count == 23)

        let reopened = try await makeList(store: FileListStore(path: path))

        #expect(await reopened.snapshot() == final)
        let reloadedItems = await reopened.snapshot().items.items
        #expect(reloadedItems.map(\.addedAt) == final.items.items.map(\.addedAt))
        #expect(reloadedItems.map { Timestamp.format($0.addedAt) } == final.items.items.map { Timestamp.format($0.addedAt) })
        #expect(await reopened.revision == 29)
        let next = try await reopened.apply(.add(title: "After restart"))
        #expect(next.revision == 30)
    }
}
