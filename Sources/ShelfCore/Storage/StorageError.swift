import Glibc

/// Why a store could not load or save. Carries the path and errno where there is one; `description` says what
/// happened and what to do.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call on `path` failed with `errno`.
    case io(call: String, path: String, errno: Int32)
    /// The file is not valid data for this store.
    case corrupt(path: String, reason: String)
    /// The journal is not valid: a bad record with good ones after it, or records that do not follow one another.
    /// Its lines before the one named are changes made since the last compaction (protocol/STORAGE.md, "Loading").
    case corruptJournal(path: String, reason: String)
    /// The file holds two items with the same id.
    case duplicateID(path: String, id: String)
    /// The file's `format` is not one this build reads.
    case unknownFormat(path: String, format: String)
    /// A commit was built on `expected` but the store is at `actual` (an earlier commit failed).
    case baseMismatch(expected: Revision, actual: Revision)
    /// Another process (another `shelfd`) holds the store's lock.
    case locked(path: String)
    /// Something other than a file or a directory (a FIFO, a device, a socket) stands at the store's path.
    case notAFile(path: String)
    /// A directory stands where the store writes a temporary file (protocol/STORAGE.md, "Loading", step 7): every
    /// compaction would fail on it.
    case directoryAtTempPath(path: String)
    /// The store's path, or a directory on the way to it, is a symbolic link whose target (or the target's
    /// directory) does not exist: an unmounted volume, say. Nothing is created there.
    case danglingLink(link: String, target: String)
    /// The list is at revision 2^64 − 2, the last one a change may produce (protocol/PROTOCOL.md §10): it takes no
    /// more changes.
    case revisionsExhausted
    /// A fault injected by a test.
    case injected(String)

    public var description: String {
        switch self {
        case .io(let call, let path, let errno):
            "\(call) failed for \(path): \(String(cString: strerror(errno))) (errno \(errno))"
        case .corruptJournal(let path, let reason):
            // Its records are the changes since the last compaction: moving it away would drop them all.
            "\(path) is not a valid Shelf list (\(reason)); it was left untouched — restore it from a backup, or "
                + "keep only the lines before the one named (moving the journal away loses every change since the "
                + "last compaction)"
        case .corrupt(let path, let reason):
            "\(path) is not a valid Shelf list (\(reason)); it was left untouched — restore it from a backup or move it away"
        case .duplicateID(let path, let id):
            "\(path) lists item \(id) twice; it was left untouched — fix or move the file"
        case .unknownFormat(let path, let format):
            "\(path) has format \(format), which this shelfd does not read; it was left untouched — use a newer shelfd"
        case .baseMismatch(let expected, let actual):
            "commit was built on revision \(expected) but the store is at \(actual)"
        case .locked(let path):
            "\(path) is in use by another shelfd; stop that one first, or pass a different --store"
        case .notAFile(let path):
            "\(path) is not a regular file (a FIFO, a device or a socket); it was left untouched — move it away, or pass another --store"
        case .directoryAtTempPath(let path):
            "\(path) is a directory, where shelfd writes a temporary file; it was left untouched — remove or move it"
        case .danglingLink(let link, let target):
            "\(link) is a symbolic link to \(target), which cannot be reached (a directory on the way is missing: an "
                + "unmounted volume?); nothing was created — mount or create it, or point the link (or --store) elsewhere"
        case .revisionsExhausted:
            "the revision counter is exhausted (the list is at revision 2^64 − 2) — nothing more can be changed; "
                + "list the items and start a new store with them"
        case .injected(let what):
            "injected fault: \(what)"
        }
    }
}
