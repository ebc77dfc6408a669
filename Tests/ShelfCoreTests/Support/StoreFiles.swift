import Foundation
@testable import ShelfCore

/// A fresh directory for one file store: the paths of its four files (protocol/STORAGE.md), and byte-level reads
/// and writes of them. Call `remove()` at the end of the test.
struct StoreFiles {
    let dir: TempDirectory
    /// The snapshot, `reading-list.json`.
    let path: String
    /// `reading-list.json.journal`.
    let journal: String
    /// `.reading-list.json.tmp`, where compaction writes the new snapshot before the rename.
    let temp: String
    /// `.reading-list.json.lock`.
    let lock: String
    /// `.reading-list.json.journal.tmp`, where compaction writes the journal that replaces the old one.
    let journalTemp: String

    init() throws {
        dir = try TempDirectory()
        path = dir.path("reading-list.json")
        journal = dir.path("reading-list.json.journal")
        temp = dir.path(".reading-list.json.tmp")
        lock = dir.path(".reading-list.json.lock")
        journalTemp = dir.path(".reading-list.json.journal.tmp")
    }

    func remove() { dir.remove() }

    /// The file's bytes, or nil when it does not exist.
    func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// The file's text, or nil when it does not exist.
    func text(_ path: String) -> String? { bytes(path).map { String(decoding: $0, as: UTF8.self) } }

    /// The journal's bytes without the zero bytes the store writes ahead of its records (protocol/STORAGE.md,
    /// "Space written ahead"), or nil when it does not exist.
    var journalBytes: [UInt8]? {
        bytes(journal).map { bytes in Array(bytes[..<(bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)]) }
    }

    /// `journalBytes` as text, without the header line (protocol/STORAGE.md, "The journal"): the records.
    var journalText: String? {
        journalBytes.map { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.hasPrefix(#"{"journal":"#), let end = text.firstIndex(of: "\n") else { return text }
            return String(text[text.index(after: end)...])
        }
    }

    /// The journal's bytes after its header line (records, then any zeros written ahead), or nil when it does not
    /// exist.
    var journalAfterHeader: [UInt8]? {
        bytes(journal).map { bytes in Array(bytes[headerLength(bytes)...]) }
    }

    /// The length of the journal's header line, LF included; 0 without one.
    var journalHeaderLength: Int { bytes(journal).map(headerLength) ?? 0 }

    private func headerLength(_ bytes: [UInt8]) -> Int {
        guard bytes.starts(with: Array(#"{"journal":"#.utf8)), let end = bytes.firstIndex(of: 0x0A) else { return 0 }
        return end + 1
    }

    /// The list identity the snapshot (or else the journal's header) names.
    var identity: UUID? {
        if let bytes = bytes(path), let identity = try? SnapshotCodec.decodeStored(bytes, path: path).identity {
            return identity
        }
        return (try? JournalFile.read(path: journal) { _ in })?.identity
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// The file's length as the file system reports it, or nil when it does not exist.
    func length(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue
    }

    /// The names in the directory, sorted.
    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? []).sorted() }

    func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    func write(_ text: String, to path: String) throws { try write(Array(text.utf8), to: path) }
}

/// The exact text the file store writes, built by hand from the documented shapes (protocol/STORAGE.md).
enum Stored {
    /// `item(n, title, …)` (TestHelpers) as stored: the wire `Item` shape, members in that order. `title` is the JSON
    /// text between the quotes (escapes written by the caller).
    static func item(
        _ n: UInt64, _ title: String, isRead: Bool = false, revision: Revision, addedAt: String = FixedClock.startText
    ) -> String {
        #"{"id":"\#(SequentialIDs.id(n).wireString)","title":"\#(title)","isRead":\#(isRead),"addedAt":"\#(addedAt)","revision":\#(revision)}"#
    }

    /// `item` as stored; its title must need no escaping.
    static func item(of item: Item) -> String {
        #"{"id":"\#(item.id.wireString)","title":"\#(item.title)","isRead":\#(item.isRead),"addedAt":"\#(Timestamp.format(item.addedAt))","revision":\#(item.revision)}"#
    }

    /// A journal line for an added or updated item, with its checksum and LF.
    static func record(_ revision: Revision, _ kind: String, _ item: String) -> String {
        sealed(#"{"revision":\#(revision),"change":{"kind":"\#(kind)","item":\#(item)}}"#) + "\n"
    }

    /// A journal line for a removal, with its checksum and LF.
    static func removal(_ revision: Revision, _ n: UInt64) -> String {
        sealed(#"{"revision":\#(revision),"change":{"kind":"removed","id":"\#(SequentialIDs.id(n).wireString)"}}"#) + "\n"
    }

    /// `json` (one object) with its checksum as the last member (protocol/STORAGE.md, "Checksums").
    static func sealed(_ json: String) -> String {
        var bytes = Array(json.utf8)
        LineChecksum.seal(&bytes, from: 0)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The journal line adding `item(n, "Book n", revision: revision)`.
    static func added(_ n: UInt64, revision: Revision) -> String {
        record(revision, "added", item(n, "Book \(n)", revision: revision))
    }

    /// A format 3 snapshot as the store writes it, for the list `identity`: the header line, then one line per item,
    /// each with its checksum.
    static func snapshot3(revision: Revision, _ items: [String], identity: UUID?) -> String {
        let list = identity?.wireString ?? "?"
        return sealed(#"{"format":3,"revision":\#(revision),"items":\#(items.count),"list":"\#(list)"}"#) + "\n"
            + items.map { sealed($0) + "\n" }.joined()
    }

    /// A format 2 snapshot: the header line, then one line per item.
    static func snapshot(revision: Revision, _ items: [String]) -> String {
        #"{"format":2,"revision":\#(revision),"items":\#(items.count)}"# + "\n" + items.map { $0 + "\n" }.joined()
    }
}

/// The commit adding `item(n, "Book n")` on top of `base`.
func addCommit(_ n: UInt64, base: Revision, title: String? = nil) -> StoreCommit {
    let added = item(n, title ?? "Book \(n)", revision: base + 1)
    return StoreCommit(generation: 0, base: base, changes: [RevisionedChange(revision: base + 1, change: .added(added))])
}

/// Waits until `store` has finished everything queued before, compaction included: a commit on a base the store is
/// never at is refused without writing, and completions come in enqueue order after the earlier batch's compaction.
/// Returns that refusal, so a caller can check the store's revision.
func settle(_ store: FileListStore) async -> StorageError? {
    await store.waitUntilCompacted()
    let refusal = await commit(store, StoreCommit(generation: 0, base: .max, changes: [])).error
    // That commit's round ends with a compaction check too, and the records appended during the last compaction
    // can already make one due: wait for it, or a second store opened on the files reads them mid-compaction.
    await store.waitUntilCompacted()
    return refusal
}

extension JournalFile {
    /// Every whole record of the journal at `path`, in order (its torn tail left out).
    static func records(at path: String) throws(StorageError) -> [RevisionedChange] {
        var records: [RevisionedChange] = []
        _ = try read(path: path) { records.append($0) }
        return records
    }
}
