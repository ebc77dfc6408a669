import Foundation
@testable import ShelfCore
import Testing

/// The optional members (author, url, tags, note, readAt) survive every storage path (protocol/STORAGE.md): the
/// journal, a compaction into the snapshot, and a restart from each; stored values that break their rules are
/// refused as corruption.
@Suite struct ItemDetailsStorageTests {
    static let detailed = Item(
        id: SequentialIDs.id(1), title: "Dune", isRead: true, addedAt: Date(timeIntervalSince1970: 1_767_323_045),
        revision: 1, author: "Frank Herbert", url: "https://example.org/dune?x=1", tags: ["classic", "scifi"],
        note: "Read the appendices.\n\tThen the map \"twice\".", readAt: Date(timeIntervalSince1970: 1_767_323_046))

    @Test("an item with every member round-trips through the journal, a compaction and a restart from the snapshot")
    func roundTrip() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, compactionMinimumBytes: 256)
        _ = try await store.load()
        try await commit(store, StoreCommit(generation: 0, base: 0, changes: [RevisionedChange(revision: 1, change: .added(Self.detailed))])).get()
        // Reloaded from the journal.
        #expect(try await FileListStore(path: files.path).load().items.items == [Self.detailed])

        // Enough plain adds to pass the compaction threshold: the snapshot then holds the detailed item.
        var revision: Revision = 1
        while !files.exists(files.path), revision < 200 {
            try await commit(store, addCommit(revision + 1, base: revision)).get()
            revision += 1
            await store.waitUntilCompacted()
        }
        #expect(files.exists(files.path), "a compaction wrote the snapshot")
        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded.items.items.first == Self.detailed)
        #expect(reloaded.revision == revision)
    }

    @Test("a journal record whose tags are not in stored form, or whose readAt is on an unread item, is refused", arguments: [
        #""tags":["SciFi"]"#, #""tags":["b","a"]"#, #""tags":["a","a"]"#, #""author":" padded ""#, #""url":"ftp://x""#,
        #""note":"bell\u0007""#, #""readAt":"2026-01-02T03:04:05.000Z""#, #""tags":"scifi""#,
    ])
    func refusedDetails(_ member: String) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let line = #"{"revision":1,"change":{"kind":"added","item":{"id":"00000000-0000-0000-0000-000000000001","title":"Dune","isRead":false,"addedAt":"2026-01-02T03:04:05.000Z","revision":1,"# + member + "}}}\n"
        // A second record after it, so the bad one is not a torn tail.
        let next = #"{"revision":2,"change":{"kind":"removed","id":"00000000-0000-0000-0000-000000000001"}}"# + "\n"
        try Data((line + next).utf8).write(to: URL(fileURLWithPath: files.path + ".journal"))
        await #expect(throws: StorageError.self) { _ = try await FileListStore(path: files.path).load() }
    }
}
