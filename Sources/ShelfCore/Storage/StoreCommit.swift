/// One storage operation: changes to make durable on top of `base`, tagged with the generation it was started for.
///
/// A store applies a commit only if its stored revision is exactly `base`; otherwise it fails the commit with
/// `StorageError.baseMismatch`, so a commit built on a change that failed can never be stored
/// (shared/design.md, invariants 2 and 4).
public struct StoreCommit: Sendable, Equatable {
    /// The `ReadingList` generation this operation belongs to; the list drops completions of older generations.
    public let generation: UInt64
    /// The stored revision the changes apply to.
    public let base: Revision
    /// The changes, with consecutive revisions starting at `base + 1`.
    public let changes: [RevisionedChange]

    /// A commit of `changes` (consecutive revisions from `base + 1`) for `generation`.
    public init(generation: UInt64, base: Revision, changes: [RevisionedChange]) {
        self.generation = generation
        self.base = base
        self.changes = changes
    }

    /// The stored revision once this commit is applied.
    public var resultingRevision: Revision { changes.last?.revision ?? base }
}
