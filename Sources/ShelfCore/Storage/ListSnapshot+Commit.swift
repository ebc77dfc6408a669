extension ListSnapshot {
    /// Applies `commit` to this snapshot the way every store does: only on top of `commit.base`, and only if each
    /// change fits (no repeated add, no update or removal of a missing id).
    /// - Throws: `StorageError.baseMismatch`, or `.corrupt` naming `path` when a change does not fit.
    public mutating func apply(_ commit: StoreCommit, path: String) throws(StorageError) {
        guard commit.base == revision else {
            throw .baseMismatch(expected: commit.base, actual: revision)
        }
        var next = self
        for entry in commit.changes {
            guard entry.revision == next.revision + 1, next.items.apply(entry.change) else {
                throw .corrupt(path: path, reason: "change at revision \(entry.revision) does not apply")
            }
            next.revision = entry.revision
        }
        self = next
    }
}
