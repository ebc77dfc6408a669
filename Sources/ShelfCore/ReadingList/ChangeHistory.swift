/// The most recent accepted changes, for `watch` resumption: a ring of at most `capacity` changes with
/// consecutive revisions.
public struct ChangeHistory: Sendable {
    /// The most changes kept.
    public let capacity: Int
    private var ring: [RevisionedChange] = []
    private var start = 0
    /// The list revision the history starts from: changes after it are kept, older ones are compacted away.
    public private(set) var base: Revision

    /// An empty history for a list at `revision` (nothing before it is known).
    public init(capacity: Int, revision: Revision) {
        self.capacity = max(0, capacity)
        base = revision
    }

    /// Records the next accepted change (its revision must follow the last one).
    public mutating func append(_ change: RevisionedChange) {
        guard capacity > 0 else {
            base = change.revision
            return
        }
        if ring.count < capacity {
            ring.append(change)
        } else {
            base = ring[start].revision
            ring[start] = change
            start = (start + 1) % capacity
        }
    }

    /// Every kept change with a revision above `revision`, in order; `nil` when some of them were compacted away
    /// (`revision` is older than `base`).
    public func changes(after revision: Revision) -> [RevisionedChange]? {
        guard revision >= base else { return nil }
        let skip = Int(min(revision - base, UInt64(ring.count)))
        var result: [RevisionedChange] = []
        result.reserveCapacity(ring.count - skip)
        for offset in skip..<ring.count {
            result.append(ring[(start + offset) % ring.count])
        }
        return result
    }
}
