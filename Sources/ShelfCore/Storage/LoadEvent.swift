/// What `FileListStore` reports of its start (its `loadEvents` hook), for the operator's log: nothing it does at
/// start is silent when it drops bytes or rewrites the files.
public enum LoadEvent: Sendable, Equatable {
    /// A torn tail was cut off the journal (protocol/STORAGE.md, "Loading", step 6).
    case cutTornTail(TornTailCut)
    /// The store was compacted at start (protocol/STORAGE.md, "Loading", step 8): the journal had `journalBytes`
    /// bytes; the new snapshot has `snapshotBytes`.
    case compactedAtStart(journalBytes: Int, snapshotBytes: Int)
}

/// What cutting a torn tail off the journal dropped, and what it kept (protocol/STORAGE.md, "Loading").
///
/// A crash in the middle of an append leaves such a tail, never acknowledged; a whole last line that fails its
/// checksum may also be damage to an acknowledged change, which only the log then tells.
public struct TornTailCut: Sendable, Equatable {
    /// The journal's path.
    public let path: String
    /// The list revision the records kept reach.
    public let keptRevision: Revision
    /// Records kept (records at or below the snapshot's revision included).
    public let keptRecords: Int
    /// Bytes kept: the header and the whole records.
    public let keptBytes: Int
    /// Bytes dropped, not counting the zero bytes written ahead at the end (protocol/STORAGE.md, "Space written
    /// ahead"), whose cut is routine and not reported.
    public let droppedBytes: Int
    /// Lines dropped, an unterminated last one included.
    public let droppedLines: Int
    /// The number of the first line dropped, counted from 1 (the header included).
    public let firstDroppedLine: Int
    /// Why that line is not a record: cut short, not a valid record, or its checksum does not match.
    public let reason: String
    /// The revision the first line dropped names, when that can still be read.
    public let droppedRevision: Revision?

    /// A cut, as `FileListStore` reports it.
    public init(
        path: String, keptRevision: Revision, keptRecords: Int, keptBytes: Int, droppedBytes: Int, droppedLines: Int,
        firstDroppedLine: Int, reason: String, droppedRevision: Revision?
    ) {
        self.path = path
        self.keptRevision = keptRevision
        self.keptRecords = keptRecords
        self.keptBytes = keptBytes
        self.droppedBytes = droppedBytes
        self.droppedLines = droppedLines
        self.firstDroppedLine = firstDroppedLine
        self.reason = reason
        self.droppedRevision = droppedRevision
    }
}
