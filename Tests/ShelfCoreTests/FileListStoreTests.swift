import Foundation
import ShelfCore
import Testing

/// `FileListStore`: loading, refusing bad files without touching them, commits appended to the journal, restart.
/// The journal itself (torn tails, replay, compaction, group commit) is covered by `JournalStoreTests`.
/// Each test works in a fresh directory under the system temp directory and removes it at the end.
struct FileListStoreTests {
    @Test("a missing file loads as an empty list at revision 0; parent directories, the lock and an empty journal are created")
    func missingFile() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("nested/deeper/reading-list.json")
        let store = FileListStore(path: path)

        let loaded = try await store.load()

        #expect(loaded == ListSnapshot())
        #expect(store.path == path)
        #expect(store.journalPath == path + ".journal")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: dir.path("nested/deeper"), isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("nested/deeper")).sorted()
            == [".reading-list.json.lock", "reading-list.json.journal"])
        // A new journal starts with its header: the list's identity, kept from now on.
        let identity = try await FileListStore(path: path).loadStored().identity
        let journal = String(decoding: FileManager.default.contents(atPath: path + ".journal") ?? Data(), as: UTF8.self)
        #expect(journal.hasPrefix(#"{"journal":2,"list":"\#(identity.wireString)","crc":""#) && journal.hasSuffix("\"}\n"))
        #expect(journal.count == 77)
    }

    @Test("commits are durable: a new store on the same path loads the same list and revision")
    func restart() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()

        try await commit(store, addCommit(1, base: 0, title: "One")).get()
        try await commit(store, addCommit(2, base: 1, title: "Two")).get()
        let read = item(1, "One", isRead: true, revision: 3)
        try await commit(store, StoreCommit(generation: 0, base: 2, changes: [
            RevisionedChange(revision: 3, change: .updated(read)),
            RevisionedChange(revision: 4, change: .removed(SequentialIDs.id(2))),
        ])).get()

        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded == (try snapshot(revision: 4, [read])))
    }

    @Test("a commit appends one journal line per change; the snapshot file is not written")
    func commitGoesToJournal() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()

        try await commit(store, addCommit(1, base: 0, title: "One")).get()

        #expect(files.journalText == Stored.record(1, "added", Stored.item(1, "One", revision: 1)))
        #expect(!files.exists(files.path))
        #expect(files.names() == [".reading-list.json.lock", "reading-list.json.journal"])
        let data = Data(try #require(files.journalText).utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let change = try #require(object["change"] as? [String: Any])
        #expect(object["revision"] as? Int == 1)
        #expect(change["kind"] as? String == "added")
        #expect((change["item"] as? [String: Any])?["title"] as? String == "One")
        #expect((change["item"] as? [String: Any])?["addedAt"] as? String == FixedClock.startText)
    }

    @Test("several commits enqueued back to back are all stored, in order")
    func queuedCommits() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()

        let results = await commitAll(store, [
            addCommit(1, base: 0, title: "One"), addCommit(2, base: 1, title: "Two"), addCommit(3, base: 2, title: "Three"),
        ])

        #expect(results.map { $0.error } == [nil, nil, nil])
        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded.revision == 3)
        #expect(reloaded.items.items.map(\.title) == ["One", "Two", "Three"])
    }

    @Test("a commit on the wrong base is refused and the journal is untouched")
    func baseMismatch() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()
        try await commit(store, addCommit(1, base: 0)).get()
        // Settled: the zeros written ahead after the first commit are there before the bytes are taken.
        _ = await settle(store)
        let before = try #require(files.bytes(files.journal))

        let result = await commit(store, addCommit(2, base: 5))

        #expect(throws: StorageError.baseMismatch(expected: 5, actual: 1)) { try result.get() }
        #expect(files.bytes(files.journal) == before)
        #expect(!files.exists(files.path))
    }

    @Test("a commit before load is refused and creates nothing")
    func commitBeforeLoad() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)

        let result = await commit(store, addCommit(1, base: 0))

        #expect(throws: StorageError.corrupt(path: files.path, reason: "commit before load")) { try result.get() }
        #expect(files.names() == [])
    }

    @Test("a snapshot that is cut short is refused as corrupt, naming the path; it and the journal are left untouched",
          arguments: [
              (#"{"format":1,"revision":3,"items":[{"id":"#, "not JSON: unexpected end of input"),
              (#"{"format":2,"revision":3,"items":1}"# + "\n" + #"{"id":"00000000-"#,
               "the last line is cut short (no newline at the end)"),
          ])
    func cutShortSnapshot(text: String, reason: String) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(text, to: files.path)
        // A journal with a torn tail: a store that refuses to load must not cut it either.
        let journal = Stored.added(1, revision: 1) + #"{"revision":2,"chan"#
        try files.write(journal, to: files.journal)

        let error = try #require(await loadResult(FileListStore(path: files.path)).error)

        #expect(error == .corrupt(path: files.path, reason: reason))
        #expect(error.description
            == "\(files.path) is not a valid Shelf list (\(reason)); it was left untouched — restore it from a backup or move it away")
        #expect(files.text(files.path) == text)
        #expect(files.text(files.journal) == journal)
        #expect(files.names() == ["reading-list.json", "reading-list.json.journal"])
    }

    @Test("a snapshot with two items of the same id is refused as duplicateID and left untouched", arguments: [
        #"{"format":1,"revision":2,"items":[\#(Stored.item(1, "A", revision: 1)),\#(Stored.item(1, "B", revision: 2))]}"#,
        Stored.snapshot(revision: 2, [Stored.item(1, "A", revision: 1), Stored.item(1, "B", revision: 2)]),
    ])
    func duplicateIDs(text: String) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(text, to: files.path)

        let error = await loadResult(FileListStore(path: files.path)).error

        #expect(error == .duplicateID(path: files.path, id: "00000000-0000-0000-0000-000000000001"))
        #expect(files.text(files.path) == text)
        #expect(files.names() == ["reading-list.json"])
    }

    @Test("a snapshot with an unknown format is refused as unknownFormat and left untouched", arguments: [
        (#"{"format":99,"revision":1,"items":[],"journal":"elsewhere"}"#, "99"),
        (#"{"format":4,"revision":1,"items":1}"# + "\n" + Stored.item(1, "A", revision: 1) + "\n", "4"),
    ])
    func unknownFormat(text: String, format: String) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(text, to: files.path)

        let error = await loadResult(FileListStore(path: files.path)).error

        #expect(error == .unknownFormat(path: files.path, format: format))
        #expect(files.text(files.path) == text)
        #expect(files.names() == ["reading-list.json"])
    }

    @Test("a snapshot with a bad item is refused as corrupt, saying which item and why, and left untouched", arguments: [
        (#"{"id":"not-a-uuid","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "id" (a UUID)"#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "title""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A\u0000","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "title""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":2}"#,
         "has revision 2, above the list's 1"),
    ])
    func badItem(json: String, problem: String) async throws {
        for (text, place) in [
            (#"{"format":1,"revision":1,"items":[\#(json)]}"#, "item 0"),
            (#"{"format":2,"revision":1,"items":1}"# + "\n" + json + "\n", "line 2"),
        ] {
            let files = try StoreFiles()
            defer { files.remove() }
            try files.write(text, to: files.path)

            let error = await loadResult(FileListStore(path: files.path)).error

            #expect(error == .corrupt(path: files.path, reason: "\(place) \(problem)"))
            #expect(files.text(files.path) == text)
            #expect(files.names() == ["reading-list.json"])
        }
    }

    @Test("a leftover temp file is removed by load and does not affect the list")
    func leftoverTemp() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()
        try await commit(store, addCommit(1, base: 0, title: "One")).get()
        try files.write(Stored.snapshot(revision: 9, []), to: files.temp)

        let reloaded = try await FileListStore(path: files.path).load()

        #expect(reloaded.revision == 1)
        #expect(reloaded.items.items.map(\.title) == ["One"])
        #expect(!files.exists(files.temp))
    }

    @Test("a leftover temp file without a snapshot is removed and the list is empty")
    func leftoverTempOnly() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write("{half a wri", to: files.temp)

        let loaded = try await FileListStore(path: files.path).load()

        #expect(loaded == ListSnapshot())
        #expect(!files.exists(files.temp))
        #expect(!files.exists(files.path))
    }

    /// Found by a hostile-input run: the compaction's rename replaced the link with a plain file, so the list left the
    /// file the user had linked to (in a synced folder, say).
    @Test("a store path that is a symbolic link stays one: commits and a compaction update the file it points to")
    func symbolicLinkIsFollowed() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let target = files.dir.url.appendingPathComponent("real-list.json").path
        try files.write(Stored.snapshot(revision: 0, []), to: target)
        try FileManager.default.createSymbolicLink(atPath: files.path, withDestinationPath: target)
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1)
        _ = try await store.load()

        for n in UInt64(1)...3 { try await commit(store, addCommit(n, base: n - 1)).get() }
        _ = await settle(store)

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: files.path) == target)
        // Compacted into the linked-to file (each commit outgrows the one-line snapshot before it).
        #expect(try SnapshotCodec.decode(try #require(files.bytes(target)), path: target).revision > 0)
        #expect(files.exists(target + ".journal"))
        #expect(try await FileListStore(path: files.path).load().items.count == 3)
    }

    /// Found by review: a link made before the first start (its file not there yet) was not followed, and the first
    /// compaction replaced it with a plain file.
    @Test("a symbolic link to a file that does not exist yet is followed: the store's files go beside its target and the link stays one")
    func danglingSymbolicLinkIsFollowed() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let target = files.dir.url.appendingPathComponent("real-list.json").path
        try FileManager.default.createSymbolicLink(atPath: files.path, withDestinationPath: "real-list.json")
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1)
        _ = try await store.load()

        for n in UInt64(1)...3 { try await commit(store, addCommit(n, base: n - 1)).get() }
        _ = await settle(store)

        #expect(store.path == target)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: files.path) == "real-list.json")
        #expect(files.exists(target) && files.exists(target + ".journal"))
        #expect(!files.exists(files.path + ".journal"))
    }

    /// Found by a hostile-input run: `link/` did not follow a link to a file not created yet, and was a second store.
    @Test("a store path with a trailing slash names the same store as without it")
    func trailingSlash() throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try FileManager.default.createSymbolicLink(atPath: files.path, withDestinationPath: "real-list.json")

        #expect(FileListStore(path: files.path + "/").path == FileListStore(path: files.path).path)
        #expect(FileListStore(path: files.path + "//").path.hasSuffix("/real-list.json"))
    }

    /// Found by review: `..` after a linked directory was simplified as text, so with no snapshot yet the store
    /// opened another directory than the kernel does, and served an empty list beside the real journal.
    @Test("a path through a linked directory and .. names the directory the kernel opens")
    func dotDotAfterALinkedDirectory() throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let base = files.dir.url.path
        try FileManager.default.createDirectory(atPath: base + "/other/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/here", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/here/linkdir", withDestinationPath: base + "/other/sub")
        let real = try #require(realpath(base + "/other", nil))
        defer { free(real) }

        let store = FileListStore(path: base + "/here/linkdir/../list.json")

        #expect(store.path == String(cString: real) + "/list.json")
    }

    /// Found by a hostile-input run: `open` waited for a writer, so `shelfd` never started and SIGTERM did not stop it.
    @Test("a FIFO at the snapshot's or the journal's path refuses the load at once, naming it, and stays", arguments: [false, true])
    func fifoRefused(atJournal: Bool) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let fifo = atJournal ? files.journal : files.path
        #expect(mkfifo(fifo, 0o600) == 0)

        // Bounded: before the fix the load never returned.
        let error = try await value(of: Task { await loadResult(FileListStore(path: files.path)).error })

        #expect(error == .notAFile(path: fifo))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    /// Found by review: a socket cannot be opened at all (ENXIO), and was reported as an `open` failure.
    @Test("a Unix socket at the snapshot's path is refused as not a file")
    func socketRefused() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(files.path.utf8)
        try #require(path.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)

        let error = try await value(of: Task { await loadResult(FileListStore(path: files.path)).error })

        #expect(error == .notAFile(path: files.path))
    }

    /// Found by a hostile-input run: a directory there was left in place, and every compaction would have failed.
    @Test("a directory where a leftover temp file goes refuses the load, naming it, before anything is written", arguments: [true, false])
    func leftoverTempDirectory(journalTemp: Bool) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let blocked = journalTemp ? files.journalTemp : files.temp
        let other = journalTemp ? files.temp : files.journalTemp
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: false)
        try files.write("{half a wri", to: other)

        await #expect(throws: StorageError.directoryAtTempPath(path: blocked)) {
            _ = try await FileListStore(path: files.path).load()
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: blocked, isDirectory: &isDirectory) && isDirectory.boolValue)
        // Refused before anything was written (found by review: the journal was created and the other leftover
        // removed first).
        #expect(files.text(other) == "{half a wri")
        #expect(!files.exists(files.journal))
    }

    @Test("a failed append answers storageFailed, keeps the journal as it was, and the next commit works",
          arguments: [FileFaults.Step.write, .fsync])
    func failedAppend(step: FileFaults.Step) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let ids = SequentialIDs()
        let list = try await makeList(store: FileListStore(path: files.path, faults: faults), ids: ids)
        let first = try await list.apply(.add(title: "One"))
        let before = try #require(files.journalBytes)
        let snapshotBefore = await list.snapshot()

        faults.arm(step)
        let error = (await outcome(list, .add(title: "Two"))).error

        #expect(error == .storageFailed(.injected(step.rawValue)))
        #expect(files.journalBytes == before)
        #expect(await list.snapshot() == snapshotBefore)
        #expect(await list.revision == 1)

        let third = try await list.apply(.add(title: "Three"))
        #expect(third.revision == 2)
        #expect(files.journalText
            == Stored.record(1, "added", Stored.item(1, "One", revision: 1))
            + Stored.record(2, "added", Stored.item(3, "Three", revision: 2)))
        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded.revision == 2)
        #expect(reloaded.items.items.map(\.id) == [first.id, third.id])
        #expect(reloaded == (await list.snapshot()))
        #expect(!files.exists(files.path))
        #expect(!files.exists(files.temp))
    }

    @Test("the rename and directory-sync steps do not fail a commit: they run only at compaction",
          arguments: [FileFaults.Step.rename, .syncDirectory])
    func compactionStepsDoNotFailCommits(step: FileFaults.Step) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let list = try await makeList(store: FileListStore(path: files.path, faults: faults))
        _ = try await list.apply(.add(title: "One"))

        faults.arm(step)
        let second = try await list.apply(.add(title: "Two"))

        #expect(second.revision == 2)
        #expect(files.journalText
            == Stored.record(1, "added", Stored.item(1, "One", revision: 1))
            + Stored.record(2, "added", Stored.item(2, "Two", revision: 2)))
        #expect(try await FileListStore(path: files.path).load() == (await list.snapshot()))
        #expect(!files.exists(files.path))
    }

    @Test("a failed first commit leaves an empty journal and no snapshot, and the next commit works",
          arguments: [FileFaults.Step.write, .fsync])
    func failedFirstCommit(step: FileFaults.Step) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let store = FileListStore(path: files.path, faults: faults)
        _ = try await store.load()

        faults.arm(step)
        let result = await commit(store, addCommit(1, base: 0, title: "One"))

        #expect(result.error == .injected(step.rawValue))
        #expect(files.journalText == "")
        #expect(files.names() == [".reading-list.json.lock", "reading-list.json.journal"])
        try await commit(store, addCommit(1, base: 0, title: "One")).get()
        #expect(try await FileListStore(path: files.path).load().items.items.map(\.title) == ["One"])
    }

    @Test("a fault armed twice fails two commits in a row, then commits work again")
    func repeatedFault() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let store = FileListStore(path: files.path, faults: faults)
        _ = try await store.load()

        faults.arm(.fsync, times: 2)
        await #expect(throws: StorageError.injected("fsync")) { try await commit(store, addCommit(1, base: 0)).get() }
        await #expect(throws: StorageError.injected("fsync")) { try await commit(store, addCommit(1, base: 0)).get() }
        #expect(files.journalText == "")
        #expect(!files.exists(files.path))

        try await commit(store, addCommit(1, base: 0)).get()
        #expect(try await FileListStore(path: files.path).load().revision == 1)
        #expect(files.journalText == Stored.added(1, revision: 1))
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
