import Glibc
import ShelfJSON

/// The append-only journal beside the snapshot (protocol/STORAGE.md): one line per accepted change,
/// `{"revision":N,"change":{…}}`, the same shape as a `changed` notification's params. Used only on the store's
/// queue; blocking.
final class JournalFile {
    let path: String
    private let faults: FileFaults?
    private var fd: Int32 = -1
    /// Bytes of whole records in the journal (the file may be longer: zero bytes written ahead follow them).
    private(set) var length = 0
    /// The file's size as this store last made it: `length`, plus zero bytes written ahead and synced (`preallocate`).
    private(set) var allocated = 0
    /// After a failed preallocation, the `length` from which to try again (so a full disk does not get a large write
    /// after every round).
    private var preallocateAgainAt = 0
    /// Set when a cut of unknown outcome left the journal's length unknown — a failed append that could not be cut
    /// back, or a compaction's cut that failed after changing the file: it may end in a partial record, so no more
    /// may be appended until the store is opened again (which drops the torn tail).
    private(set) var damaged = false
    /// Set when the directory sync after a replacement's rename failed (`dropFirst`): the rename may not be
    /// durable, so a restart could find the old journal, which lacks whatever is appended to this one from then on.
    /// The next append retries the sync first and writes nothing unless it succeeds.
    private var owedDirectorySync: (() throws(StorageError) -> Void)?

    init(path: String, faults: FileFaults?) {
        self.path = path
        self.faults = faults
        tempPath = FileBytes.hiddenSibling(of: path, suffix: "tmp")
    }

    /// Where `dropFirst` writes the journal that replaces this one (`.NAME.journal.tmp`).
    let tempPath: String

    /// Removes a replacement journal left by a crash during `dropFirst`.
    func removeLeftoverTemp() {
        _ = unlink(tempPath)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// What a journal holds: its whole records in order, and how many bytes of it are whole records.
    struct Contents {
        var records: [RevisionedChange] = []
        /// Bytes of whole records; anything after them is a record torn by a crash, dropped when the journal is
        /// opened.
        var validLength = 0
    }

    /// Reads the journal at `path` (missing = empty). A torn tail — anything after the last record that is not a
    /// whole valid record, with no valid record after it — is tolerated; a bad record followed by a good one is
    /// corruption.
    /// - Throws: `StorageError.io`, or `.corruptJournal` naming the line.
    /// - Parameter prefix: read only the journal's first `prefix` bytes (what a compaction snapshots, while appends
    ///   go on after them); `nil` for the whole file.
    static func read(path: String, prefix: Int? = nil) throws(StorageError) -> Contents {
        guard let bytes = try FileBytes.read(path, limit: prefix ?? .max) else { return Contents() }
        let lines = try LineChunks.map(bytes, from: 0, firstLineNumber: 1) { line throws(StorageError) in
            (line.bytes.startIndex, line.number, try Self.record(line.bytes, line: line.number, path: path))
        }
        var contents = Contents()
        for (index, line) in lines.enumerated() {
            guard let record = line.2 else {
                if let later = lines[(index + 1)...].first(where: { $0.2 != nil }) {
                    throw .corruptJournal(path: path, reason: "line \(line.1) is not a valid record, but line \(later.1) after it is")
                }
                contents.validLength = line.0
                return contents
            }
            contents.records.append(record)
        }
        contents.validLength = LineChunks.endOfLastLine(bytes, from: 0)
        return contents
    }

    /// One journal line: `nil` when it is not a whole record (what a torn write leaves); a record that is whole but
    /// breaks the model's rules (an untrimmed, blank or control-character title, an item revision other than the
    /// record's) is corruption, wherever it stands.
    private static func record(_ bytes: ArraySlice<UInt8>, line: Int, path: String) throws(StorageError) -> RevisionedChange? {
        guard let value = try? JSONParser.parse(bytes), let record = RevisionedChange(json: value) else { return nil }
        switch record.change {
        case .added(let item), .updated(let item):
            guard case .success(let title) = Title.validate(item.title, checkingBytes: false), title == item.title else {
                throw .corruptJournal(path: path, reason: "line \(line): the item's title breaks the title rules")
            }
            guard item.revision == record.revision else {
                throw .corruptJournal(path: path, reason: "line \(line): the item's revision \(item.revision) is not the record's \(record.revision)")
            }
            do {
                _ = try SnapshotCodec.checkedDetails(item, at: "line \(line)", path: path)
            } catch {
                if case .corrupt(_, let reason) = error { throw .corruptJournal(path: path, reason: reason) }
                throw error
            }
        case .removed:
            break
        }
        return record
    }

    /// Appends the line for `change`, with its LF, to `bytes`.
    static func appendLine(_ change: RevisionedChange, to bytes: inout [UInt8]) {
        change.appendJSON(to: &bytes)
        bytes.append(0x0A)
    }

    /// Opens the journal for appending, cutting it to `validLength` (dropping a torn tail) first.
    func open(keeping validLength: Int) throws(StorageError) {
        let fd = retryingEINTR { Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        if fd < 0 { throw .io(call: "open", path: path, errno: errno) }
        self.fd = fd
        try truncate(to: validLength)
    }

    /// Appends whole records and makes them durable (fdatasync). On failure the journal is cut back to its length
    /// before, so a half-written record never stays behind a later one.
    /// - Throws: the write or sync error; `.io(call: "ftruncate", …)` if even the cut fails (the store then stops
    ///   taking writes).
    func append(_ bytes: [UInt8]) throws(StorageError) {
        if let sync = owedDirectorySync {
            // Nothing is written before it succeeds: a record appended only to a journal the directory may not
            // name could vanish at a restart after it was acknowledged.
            try faults?.check(.rotateSync)
            try sync()
            owedDirectorySync = nil
        }
        let before = length
        do throws(StorageError) {
            try faults?.check(.write)
            // At the recorded length, wherever a failed write left the file: a torn tail is overwritten.
            try FileBytes.writeAll(bytes[...], to: fd, at: before, path: path)
            try faults?.check(.fsync)
            if retryingEINTR({ fdatasync(fd) }) != 0 { throw .io(call: "fdatasync", path: path, errno: errno) }
            length = before + bytes.count
            allocated = max(allocated, length)
        } catch {
            try? truncate(to: before)
            throw error
        }
    }

    /// Writes zero bytes ahead of the records, up to `preallocationBytes` past them, once fewer than a quarter of
    /// that are left, and syncs them (protocol/STORAGE.md, "Space written ahead").
    ///
    /// Why: `fdatasync` after a write that grows the file must also write the inode (its size) — a second,
    /// serial device write on ext4; an append into space already written and synced needs only the data
    /// (figures in protocol/STORAGE.md; PostgreSQL zero-fills its WAL segments for the same reason). A failure is
    /// harmless: appends always write at `length`, the space is only a head start, and reading treats zero bytes
    /// after the last record as a torn tail. After one, the file is cut back to what was there, and the next try
    /// waits until the records have grown by a quarter of `preallocationBytes`.
    func preallocate(_ preallocationBytes: Int) {
        guard preallocationBytes > 0, !damaged, allocated - length < preallocationBytes / 4,
              length >= preallocateAgainAt else { return }
        let start = max(allocated, length)
        let target = length + preallocationBytes
        do throws(StorageError) {
            try FileBytes.writeAll([UInt8](repeating: 0, count: target - start)[...], to: fd, at: start, path: path)
            try faults?.check(.preallocate)
            if retryingEINTR({ fdatasync(fd) }) != 0 { throw .io(call: "fdatasync", path: path, errno: errno) }
            allocated = target
        } catch {
            // Gives back what a full disk let through; unsynced, as zeros past the last record need no sync.
            _ = retryingEINTR { ftruncate(fd, off_t(start)) }
            preallocateAgainAt = length + preallocationBytes / 4
        }
    }

    /// Drops the journal's first `count` bytes of records (a new snapshot holds them). When nothing follows them, the
    /// journal is cut to 0 (`truncate`). Otherwise the records after them are written to `tempPath`, synced, renamed
    /// over the journal and the directory synced (protocol/STORAGE.md, "Compaction"), so at every moment the
    /// directory holds a journal that, with the new snapshot, is the whole list.
    /// - Throws: a failure before the rename leaves this journal as it was. After the rename, a failed directory
    ///   sync is owed: this handle already writes to the new file, but a restart may find the old journal (which,
    ///   with the new snapshot, still holds every record so far), so each later `append` first retries the sync
    ///   and writes nothing until it succeeds.
    func dropFirst(_ count: Int, syncDirectory: @escaping () throws(StorageError) -> Void) throws(StorageError) {
        if count >= length {
            try truncate(to: 0, wholeRecordsPast: true)
            return
        }
        let rest = try FileBytes.read(fd, offset: count, count: length - count, path: path)
        let temp = retryingEINTR { Glibc.open(tempPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        if temp < 0 { throw .io(call: "open", path: tempPath, errno: errno) }
        do throws(StorageError) {
            try faults?.check(.rotate)
            try FileBytes.writeAll(rest[...], to: temp, at: 0, path: tempPath)
            if retryingEINTR({ fdatasync(temp) }) != 0 { throw .io(call: "fdatasync", path: tempPath, errno: errno) }
            if rename(tempPath, path) != 0 { throw .io(call: "rename", path: path, errno: errno) }
        } catch {
            close(temp)
            removeLeftoverTemp()
            throw error
        }
        // Renamed: from here on, only the new file may be written.
        close(fd)
        fd = temp
        length = rest.count
        allocated = rest.count
        preallocateAgainAt = 0
        do throws(StorageError) {
            try faults?.check(.rotateSync)
            try syncDirectory()
            owedDirectorySync = nil
        } catch {
            owedDirectorySync = syncDirectory
            throw error
        }
    }

    /// Cuts the journal to `newLength` bytes and syncs it. On failure the journal's true length is unknown, so it
    /// is marked `damaged` — unless `wholeRecordsPast` says the bytes after `newLength` are whole records a new
    /// snapshot already holds (a compaction's cut) and the `ftruncate` failed with the file's size unchanged: then
    /// the journal is as it was, still right beside the new snapshot (a restart skips records at or below the
    /// snapshot's revision), and the next compaction drops them. One failed cut then costs a retry, not every write
    /// until a restart.
    func truncate(to newLength: Int, wholeRecordsPast: Bool = false) throws(StorageError) {
        let sizeBefore = wholeRecordsPast ? fileSize() : nil
        do throws(StorageError) {
            try faults?.check(.truncate)
            if retryingEINTR({ ftruncate(fd, off_t(newLength)) }) != 0 { throw .io(call: "ftruncate", path: path, errno: errno) }
            try faults?.check(.truncateLate)
        } catch {
            if sizeBefore == nil || fileSize() != sizeBefore { damaged = true }
            throw error
        }
        do throws(StorageError) {
            if retryingEINTR({ fdatasync(fd) }) != 0 { throw .io(call: "fdatasync", path: path, errno: errno) }
        } catch {
            damaged = true
            throw error
        }
        // A retry still waits for as many more bytes of records as it did, counted from the new end: after a
        // compaction near the retry point the records would otherwise never reach it again.
        preallocateAgainAt = max(0, preallocateAgainAt - max(0, length - newLength))
        length = newLength
        allocated = newLength
    }

    /// The file's size in bytes, or nil when `fstat` fails (then nothing can be known about it).
    private func fileSize() -> Int? {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : nil
    }
}
