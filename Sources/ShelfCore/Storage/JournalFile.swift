import Foundation
import Glibc
import ShelfJSON

/// The append-only journal beside the snapshot (protocol/STORAGE.md): a header line naming the list
/// (`{"journal":2,"list":"UUID","crc":"…"}`), then one line per accepted change, `{"revision":N,"change":{…},"crc":"…"}`,
/// the shape of a `changed` notification's params with a checksum (`LineChecksum`). Journals written before
/// checksums (no header, no `crc`) are still read. Used only on the store's queue; blocking.
final class JournalFile {
    let path: String
    private let faults: FileFaults?
    private var fd: Int32 = -1
    /// Bytes of whole records in the journal (the file may be longer: zero bytes written ahead follow them).
    private(set) var length = 0
    /// Bytes of the header line at the file's start; 0 while the file is one written before headers (until
    /// `dropFirst` replaces it).
    private(set) var headerLength = 0
    /// The header this journal is written with: the list's identity.
    let header: [UInt8]
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

    /// How many bytes `dropFirst` copies at a time.
    private let blockBytes: Int

    /// - Parameter blockBytes: how many bytes `dropFirst` copies at a time (at least 1).
    init(path: String, identity: UUID, faults: FileFaults?, blockBytes: Int = FileListStore.defaultReadBlockBytes) {
        self.path = path
        self.blockBytes = max(1, blockBytes)
        header = Self.headerLine(identity)
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

    /// What reading a journal found (`read`): its header, how many bytes are whole records, and what was cut.
    struct Contents {
        /// The list identity the header names; `nil` for a journal without one (written before checksums).
        var identity: UUID?
        /// Bytes of the header line, LF included; 0 without one.
        var headerLength = 0
        /// Bytes of the header and the whole records; anything after them is a torn tail, dropped when the journal is
        /// opened.
        var validLength = 0
        /// How many records were read (and handed to `each`).
        var records = 0
        /// The torn tail found after the records, unless it is only zero bytes (the space written ahead).
        var tail: TornTail?
    }

    /// The journal format with a header line and a checksum on every record (protocol/STORAGE.md, "The journal").
    static let format = 2

    /// Reads the journal at `path` (missing = empty) a block at a time, handing each whole record to `each` in
    /// order. A torn tail — anything after the last record that is not a whole valid record (one whose checksum does
    /// not match included), with no valid record after it — is tolerated and described in `Contents.tail`; a bad
    /// record followed by a good one is corruption.
    /// - Throws: `StorageError.io`, `.unknownFormat` for a header of another format, `.corruptJournal` naming the
    ///   line, or whatever `each` throws.
    /// - Parameters:
    ///   - prefix: read only the journal's first `prefix` bytes (what a compaction snapshots, while appends go on
    ///     after them); `nil` for the whole file.
    ///   - blockBytes: how many bytes are read at a time (at least 1); a line split between two blocks is read whole.
    static func read(
        path: String, prefix: Int? = nil, blockBytes: Int = FileListStore.defaultReadBlockBytes,
        each: (RevisionedChange) throws(StorageError) -> Void
    ) throws(StorageError) -> Contents {
        var contents = Contents()
        guard let reader = try FileBytes.openForReading(path) else { return contents }
        var remaining = prefix ?? .max
        var buffer: [UInt8] = []
        // The offset in the file of `buffer[0]`, and the number of its first line.
        var base = 0
        var lineNumber = 1
        var atEnd = false
        var firstBad: (line: Int, offset: Int, reason: String, revision: Revision?)?
        var droppedLines = 0
        var checked = false
        while !atEnd {
            let wanted = min(max(1, blockBytes), remaining)
            let n = wanted == 0 ? 0 : try reader.append(to: &buffer, count: wanted)
            remaining -= n
            if n == 0 { atEnd = true }
            let end = LineChunks.endOfLastLine(buffer, from: 0)
            if end == 0 { continue }
            var from = 0
            if !checked {
                checked = true
                // The header, when the first line is one: only the first line can be.
                if let identity = try header(buffer[..<(buffer.firstIndex(of: 0x0A) ?? 0)], path: path) {
                    contents.identity = identity
                    contents.headerLength = (buffer.firstIndex(of: 0x0A) ?? 0) + 1
                    contents.validLength = contents.headerLength
                    from = contents.headerLength
                    lineNumber = 2
                }
            }
            let requireChecksum = contents.identity != nil
            let lines = try LineChunks.map(buffer, from: from, firstLineNumber: lineNumber) { line throws(StorageError) in
                (line.bytes.startIndex, line.number, line.bytes.count,
                 try classify(line.bytes, line: line.number, requireChecksum: requireChecksum, path: path))
            }
            for (offset, number, count, line) in lines {
                switch line {
                case .record(let record):
                    if let bad = firstBad {
                        throw .corruptJournal(path: path, reason: badLineReason(bad.line, offset: bad.offset, bad.reason, later: number))
                    }
                    try each(record)
                    contents.records += 1
                    contents.validLength = base + offset + count + 1
                case .invalid(let reason, let revision):
                    if firstBad == nil { firstBad = (number, base + offset, reason, revision) }
                    droppedLines += 1
                }
            }
            lineNumber += lines.count
            base += end
            buffer.removeFirst(end)
        }
        // `buffer` is the unterminated last line; zero bytes at its end are the space written ahead, not damage.
        let zeros = buffer.reversed().prefix { $0 == 0 }.count
        let droppedBytes = base + buffer.count - zeros - contents.validLength
        if buffer.count > zeros { droppedLines += 1 }
        if droppedBytes > 0 {
            let first = firstBad ?? (lineNumber, base, Self.cutShort, nil)
            contents.tail = TornTail(
                line: first.line, reason: first.reason, revision: first.revision, bytes: droppedBytes, lines: droppedLines)
        }
        return contents
    }

    /// Why an unterminated last line is a torn tail.
    static let cutShort = "it is cut short (no newline at the end)"
    /// Why a line whose checksum fails is not a record.
    static let checksumFails = "its checksum (CRC-32C) does not match"

    /// What a torn tail held (logged when it is cut: protocol/STORAGE.md, "Loading").
    struct TornTail: Sendable, Equatable {
        /// The number of its first line, counted from 1 (the header included).
        let line: Int
        /// Why that line is not a record.
        let reason: String
        /// The revision that line names, when it can still be read.
        let revision: Revision?
        /// Its bytes, not counting zero bytes at the end (the space written ahead).
        let bytes: Int
        /// Its lines, an unterminated last one included.
        let lines: Int
    }

    private static func badLineReason(_ line: Int, offset: Int, _ reason: String, later: Int) -> String {
        if reason == checksumFails {
            return "line \(line), at byte \(offset), does not match its checksum (CRC-32C), but line \(later) after it is a valid record"
        }
        return "line \(line) is not a valid record, but line \(later) after it is"
    }

    /// One journal line, classified.
    private enum Line: Sendable {
        case record(RevisionedChange)
        /// Not a whole record: what a torn write leaves (`revision`: the one it names, when that can be read).
        case invalid(reason: String, revision: Revision?)
    }

    /// The identity a header line names, or `nil` when `line` is not a header (a journal written before headers).
    /// - Throws: `.unknownFormat` for a header of another format; `.corruptJournal` for one without a valid `list`.
    private static func header(_ line: ArraySlice<UInt8>, path: String) throws(StorageError) -> UUID? {
        guard case .object(let object)? = try? JSONParser.parse(line), let format = object["journal"]?.numberValue else {
            return nil
        }
        guard format.int64 == Int64(Self.format) else { throw .unknownFormat(path: path, format: format.text) }
        // A header that fails its checksum is read as a damaged line: a torn tail alone, corruption before a record.
        guard case .valid = LineChecksum.check(line) else { return nil }
        guard let text = object["list"]?.stringValue, let identity = UUID(wireText: text) else {
            throw .corruptJournal(path: path, reason: "line 1: the header needs a \"list\" id (a UUID)")
        }
        return identity
    }

    /// The header line for the list `identity`, LF included: `{"journal":2,"list":"UUID","crc":"…"}`.
    static func headerLine(_ identity: UUID) -> [UInt8] {
        var bytes = Array(#"{"journal":\#(format),"list":"\#(identity.wireString)"}"#.utf8)
        LineChecksum.seal(&bytes, from: 0)
        bytes.append(0x0A)
        return bytes
    }

    /// One journal line: `.invalid` when it is not a whole record (what a torn write leaves, or damage that its
    /// checksum shows); a record that is whole but breaks the model's rules (an untrimmed, blank or
    /// control-character title, an item revision other than the record's) is corruption, wherever it stands.
    private static func classify(
        _ bytes: ArraySlice<UInt8>, line: Int, requireChecksum: Bool, path: String
    ) throws(StorageError) -> Line {
        let plain: RevisionedChange?
        switch LineChecksum.check(bytes) {
        case .mismatch:
            return .invalid(reason: checksumFails, revision: namedRevision(bytes))
        case .absent where requireChecksum:
            return .invalid(reason: "it has no checksum", revision: namedRevision(bytes))
        case .absent:
            plain = PlainRecord.decode(bytes, sealed: false)
        case .valid(let body):
            plain = PlainRecord.decode(body, sealed: true)
        }
        // The usual record in its writer's layout is read straight from its bytes; any other the general way.
        guard let record = plain ?? (try? JSONParser.parse(bytes)).flatMap(RevisionedChange.init(json:)) else {
            return .invalid(reason: "it is not a valid record", revision: namedRevision(bytes))
        }
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
        return .record(record)
    }

    /// The revision a damaged line still names, for the log: the digits after `{"revision":`.
    private static func namedRevision(_ bytes: ArraySlice<UInt8>) -> Revision? {
        let key = Array(#"{"revision":"#.utf8)
        guard bytes.starts(with: key) else { return nil }
        let digits = bytes.dropFirst(key.count).prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        return Revision(String(decoding: digits, as: UTF8.self))
    }

    /// Appends the line for `change`, with its checksum and LF, to `bytes`.
    static func appendLine(_ change: RevisionedChange, to bytes: inout [UInt8]) {
        let start = bytes.count
        change.appendJSON(to: &bytes)
        LineChecksum.seal(&bytes, from: start)
        bytes.append(0x0A)
    }

    /// Opens the journal for appending, cutting it to `validLength` (dropping a torn tail) first. A journal with no
    /// record and no header (a new store) gets its header, synced.
    /// - Parameter headerLength: the header's length as read (`Contents.headerLength`).
    func open(keeping validLength: Int, headerLength: Int) throws(StorageError) {
        let fd = retryingEINTR { Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        if fd < 0 { throw .io(call: "open", path: path, errno: errno) }
        self.fd = fd
        try truncate(to: validLength)
        self.headerLength = headerLength
        guard validLength == 0 else { return }
        try FileBytes.writeAll(header[...], to: fd, at: 0, path: path)
        if retryingEINTR({ fdatasync(fd) }) != 0 { throw .io(call: "fdatasync", path: path, errno: errno) }
        self.headerLength = header.count
        length = header.count
        allocated = header.count
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

    /// Drops the journal's first `count` bytes (its header and records a new snapshot holds). When nothing follows
    /// them and the file starts with its header, the journal is cut to the header (`truncate`). Otherwise the header
    /// and the records after them are written to `tempPath`, synced, renamed
    /// over the journal and the directory synced (protocol/STORAGE.md, "Compaction"), so at every moment the
    /// directory holds a journal that, with the new snapshot, is the whole list.
    /// - Throws: a failure before the rename leaves this journal as it was. After the rename, a failed directory
    ///   sync is owed: this handle already writes to the new file, but a restart may find the old journal (which,
    ///   with the new snapshot, still holds every record so far), so each later `append` first retries the sync
    ///   and writes nothing until it succeeds.
    func dropFirst(_ count: Int, syncDirectory: @escaping () throws(StorageError) -> Void) throws(StorageError) {
        if count >= length, headerLength > 0 {
            try truncate(to: headerLength, wholeRecordsPast: true)
            return
        }
        let kept = max(0, length - count)
        let temp = retryingEINTR { Glibc.open(tempPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        if temp < 0 { throw .io(call: "open", path: tempPath, errno: errno) }
        do throws(StorageError) {
            try faults?.check(.rotate)
            try FileBytes.writeAll(header[...], to: temp, at: 0, path: tempPath)
            // A block at a time: what was appended during a compaction has no bound of its own.
            var copied = 0
            while copied < kept {
                let block = try FileBytes.read(fd, offset: count + copied, count: min(blockBytes, kept - copied), path: path)
                try FileBytes.writeAll(block[...], to: temp, at: header.count + copied, path: tempPath)
                copied += block.count
            }
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
        length = header.count + kept
        allocated = length
        headerLength = header.count
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
