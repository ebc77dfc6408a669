import Foundation

extension ListSnapshot {
    /// Applies `commit` to this snapshot the way every store does: only on top of `commit.base`, and only if each
    /// change fits (no repeated add, no update or removal of a missing id, consecutive revisions). Checked first,
    /// then applied in place, so a commit costs O(its changes), not a copy of the list.
    /// - Throws: `StorageError.baseMismatch`, or `.corrupt` naming `path` when a change does not fit; the snapshot
    ///   is then unchanged.
    public mutating func apply(_ commit: StoreCommit, path: String) throws(StorageError) {
        guard commit.base == revision else {
            throw .baseMismatch(expected: commit.base, actual: revision)
        }
        var present: [UUID: Bool] = [:]
        var expected = revision
        for entry in commit.changes {
            let id = entry.change.itemID
            let exists = present[id] ?? (items[id] != nil)
            let fits: Bool
            switch entry.change {
            case .added: fits = !exists
            case .updated, .removed: fits = exists
            }
            guard entry.revision == expected + 1, fits else {
                throw .corrupt(path: path, reason: "change at revision \(entry.revision) does not apply")
            }
            if case .removed = entry.change { present[id] = false } else { present[id] = true }
            expected = entry.revision
        }
        for entry in commit.changes {
            items.apply(entry.change)
            revision = entry.revision
        }
    }
}
