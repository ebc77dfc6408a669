/// A change together with the list revision it produced.
public struct RevisionedChange: Sendable, Equatable {
    /// The list revision after this change.
    public let revision: Revision
    /// What changed.
    public let change: ListChange

    /// `change`, made at list revision `revision`.
    public init(revision: Revision, change: ListChange) {
        self.revision = revision
        self.change = change
    }
}
