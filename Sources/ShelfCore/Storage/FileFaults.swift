import Synchronization

/// Fault injection for `FileListStore` in tests: arm a step and its next `times` occurrences fail with
/// `StorageError.injected`, as a full disk or a failing device would.
public final class FileFaults: Sendable {
    /// The steps that can be made to fail:
    /// - a journal append: `write`, `fsync`;
    /// - an atomic snapshot replacement: `write` (once, before the first slice), `syncSlice` (the sync after each
    ///   4 MiB slice but the last), `fsync` (once, at the end), `rename`, `syncDirectory`;
    /// - the journal's truncation after a compaction or a failed append: `truncate` (before the cut: the file stays
    ///   as it was), `truncateLate` (after it: the file changed, as when a failing device reports an error late);
    /// - the zero bytes written ahead of the journal's records: `preallocate` (after the zeros are written, before
    ///   they are synced);
    /// - the journal's replacement after a compaction during which rounds were appended: `rotate` (before it is
    ///   written), `rotateSync` (the directory sync after its rename, and its retry before the next append).
    public enum Step: String, Sendable, Hashable, CaseIterable {
        case write, syncSlice, fsync, rename, syncDirectory, truncate, truncateLate, preallocate, rotate, rotateSync
    }

    private let armed = Mutex<[Step: Int]>([:])

    /// No step armed.
    public init() {}

    /// Makes the next `times` occurrences of `step` fail.
    public func arm(_ step: Step, times: Int = 1) {
        armed.withLock { $0[step, default: 0] += times }
    }

    /// Disarms every step.
    public func clear() {
        armed.withLock { $0.removeAll() }
    }

    /// Throws if `step` is armed, consuming one occurrence.
    func check(_ step: Step) throws(StorageError) {
        let fail = armed.withLock { armed -> Bool in
            guard let left = armed[step], left > 0 else { return false }
            armed[step] = left - 1
            return true
        }
        if fail { throw .injected(step.rawValue) }
    }
}
