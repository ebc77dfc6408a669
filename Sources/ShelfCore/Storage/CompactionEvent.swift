/// What `FileListStore` reports of its compactions (its `compactionEvents` hook): only what an operator needs to
/// hear, since no commit fails with a compaction — a failure, and the first success after failures.
public enum CompactionEvent: Sendable, Equatable {
    /// A compaction failed with the error (a full disk, say). Every change is still in the journal, which grows
    /// until a compaction succeeds; the next try comes once the journal has doubled.
    case failed(StorageError)
    /// A compaction's last step, cutting the journal, failed halfway (protocol/STORAGE.md, "Double faults"): no
    /// acknowledged change is lost, but the journal's length is unknown, so the store takes no more writes
    /// (every change is answered `storage_failed`) until it is opened again.
    case stoppedWrites(StorageError)
    /// A compaction succeeded after `failures` failed ones in a row: the journal is back to its usual size.
    case recovered(afterFailures: Int)
}
