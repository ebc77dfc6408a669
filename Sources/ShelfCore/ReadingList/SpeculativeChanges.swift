import Foundation

/// The changes handed to the store and not yet answered, laid over the accepted list: what new requests are
/// checked against. Holding only the pending changes (not a second copy of the list) keeps memory at one list.
struct SpeculativeChanges: Sendable {
    /// Pending state by id: an item, or `nil` for a pending removal.
    private var overlay: [UUID: (item: Item?, revision: Revision)] = [:]
    /// The revision the list will have once every pending change is saved.
    private(set) var revision: Revision

    init(revision: Revision) {
        self.revision = revision
    }

    /// The item with `id` as it will be, looking through pending changes to `accepted`.
    func item(_ id: UUID, accepted: ItemCollection) -> Item? {
        if let pending = overlay[id] { return pending.item }
        return accepted[id]
    }

    /// Records a change handed to the store.
    mutating func add(_ change: RevisionedChange) {
        switch change.change {
        case .added(let item), .updated(let item): overlay[item.id] = (item, change.revision)
        case .removed(let id): overlay[id] = (nil, change.revision)
        }
        revision = change.revision
    }

    /// Moves to `revision` without recording a pending change (one that was saved as it was decided).
    mutating func advance(to revision: Revision) {
        self.revision = revision
    }

    /// Forgets a change once it is published, unless a later pending change to the same item supersedes it.
    mutating func published(_ change: RevisionedChange) {
        let id = change.change.itemID
        if overlay[id]?.revision == change.revision { overlay[id] = nil }
    }

    /// Forgets every pending change (after a failed save).
    mutating func reset(to revision: Revision) {
        overlay.removeAll()
        self.revision = revision
    }
}
