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
    /// A commit of one change, the one a request makes, holds it here rather than in an array: an array per commit
    /// was an allocation on the event loop for every change, and a memory store never reads it.
    private let single: RevisionedChange?
    /// The changes of a commit of any other number.
    private let several: [RevisionedChange]

    /// A commit of `changes` (consecutive revisions from `base + 1`) for `generation`.
    public init(generation: UInt64, base: Revision, changes: [RevisionedChange]) {
        self.generation = generation
        self.base = base
        if changes.count == 1 {
            (single, several) = (changes[0], [])
        } else {
            (single, several) = (nil, changes)
        }
    }

    /// A commit of one change (its revision is `base + 1`) for `generation`.
    public init(generation: UInt64, base: Revision, change: RevisionedChange) {
        self.generation = generation
        self.base = base
        (single, several) = (change, [])
    }

    /// The changes, with consecutive revisions starting at `base + 1`.
    public var changes: [RevisionedChange] {
        single.map { [$0] } ?? several
    }

    /// Calls `body` with each change, in revision order, without building the array `changes` makes for a commit
    /// of one change (the file store reads every commit this way on its queue).
    public func forEachChange<E: Error>(_ body: (RevisionedChange) throws(E) -> Void) throws(E) {
        if let single { return try body(single) }
        for change in several { try body(change) }
    }

    /// The stored revision once this commit is applied.
    public var resultingRevision: Revision { single?.revision ?? several.last?.revision ?? base }
}
