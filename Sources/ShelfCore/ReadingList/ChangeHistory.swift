/// The most recent accepted changes, for `watch` resumption: at most `capacity` changes with consecutive revisions,
/// and at most `byteLimit` bytes of them by `estimatedBytes(of:)`; the oldest go first.
public struct ChangeHistory: Sendable {
    /// The most changes kept.
    public let capacity: Int
    /// The most bytes the kept changes may take, by `estimatedBytes(of:)` (`shelfd --history-bytes`).
    public let byteLimit: Int
    /// The kept changes are `changes[head...]`; dropped ones before `head` are cut off in bulk, amortised.
    private var changes: [RevisionedChange] = []
    private var head = 0
    /// The estimated bytes of the kept changes.
    public private(set) var keptBytes = 0
    /// The list revision the history starts from: changes after it are kept, older ones are compacted away.
    public private(set) var base: Revision

    /// An empty history for a list at `revision` (nothing before it is known).
    /// - Parameters:
    ///   - capacity: the most changes kept; below 0 counts as 0.
    ///   - byteLimit: the most bytes kept, by `estimatedBytes(of:)`; below 0 counts as 0. Default: no limit.
    public init(capacity: Int, byteLimit: Int = Int.max, revision: Revision) {
        self.capacity = max(0, capacity)
        self.byteLimit = max(0, byteLimit)
        base = revision
    }

    /// The default `byteLimit` of `shelfd`: 64 MiB (`--history-bytes`).
    public static let defaultByteLimit = 64 << 20

    /// What one kept change costs, roughly: its item's encoded size (`Item.jsonByteCount`: every member, so a
    /// 64 KiB note counts as 64 KiB) plus 64 bytes for the value and its array slot; 160 for a removal.
    public static func estimatedBytes(of change: RevisionedChange) -> Int {
        switch change.change {
        case .added(let item), .updated(let item): 64 + item.jsonByteCount
        case .removed: 160
        }
    }

    /// How many changes are kept.
    public var count: Int { changes.count - head }

    /// Records the next accepted change (its revision must follow the last one), dropping the oldest while more
    /// than `capacity` changes or `byteLimit` bytes are kept.
    public mutating func append(_ change: RevisionedChange) {
        changes.append(change)
        keptBytes += Self.estimatedBytes(of: change)
        while count > capacity || (keptBytes > byteLimit && count > 0) {
            let dropped = changes[head]
            keptBytes -= Self.estimatedBytes(of: dropped)
            base = dropped.revision
            head += 1
        }
        if head > 64, head * 2 > changes.count {
            changes.removeFirst(head)
            head = 0
        }
    }

    /// Every kept change with a revision above `revision`, in order; `nil` when some of them were compacted away
    /// (`revision` is older than `base`).
    public func changes(after revision: Revision) -> [RevisionedChange]? {
        guard revision >= base else { return nil }
        let skip = Int(min(revision - base, UInt64(count)))
        return Array(changes[(head + skip)...])
    }
}
