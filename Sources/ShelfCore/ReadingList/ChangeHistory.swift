import Foundation

/// The most recent accepted changes, for `watch` resumption: at most `capacity` changes with consecutive revisions,
/// and at most `byteLimit` bytes of them by `estimatedBytes(of:)`; the oldest go first.
public struct ChangeHistory: Sendable {
    /// The most changes kept.
    public let capacity: Int
    /// The most bytes the kept changes may take, by `estimatedBytes(of:)` (`shelfd --history-bytes`).
    public let byteLimit: Int
    /// One kept change and its estimated bytes, counted once when it is appended (an item's size is linear in its
    /// text, and every change is counted again when it is dropped).
    private struct Kept: Sendable {
        let change: RevisionedChange
        let bytes: Int
    }
    /// A ring: the kept changes are the `count` slots from `head` on, wrapping at the end. A dropped change's slot
    /// gets `vacant` at once, so its item's memory goes with it; a placeholder rather than an optional, whose
    /// wrapping costs every store and drop. Grows by doubling, never beyond `capacity` slots.
    private var slots: [Kept] = []
    /// What an unused slot holds: a removal owns no memory.
    private static var vacant: Kept { Kept(change: RevisionedChange(revision: 0, change: .removed(noID)), bytes: 0) }
    private static let noID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    private var head = 0
    /// How many changes are kept.
    public private(set) var count = 0
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
    public static func estimatedBytes(of change: borrowing RevisionedChange) -> Int {
        switch change.change {
        case .added(let item), .updated(let item): 64 + item.jsonByteCount
        case .removed: 160
        }
    }

    /// Records the next accepted change (its revision must follow the last one), dropping the oldest while more
    /// than `capacity` changes or `byteLimit` bytes are kept.
    public mutating func append(_ change: consuming RevisionedChange) {
        let bytes = Self.estimatedBytes(of: change)
        // A full ring (the usual state of a busy list's history): the new change takes the oldest one's slot in
        // one store, rather than the slot being emptied and filled.
        if count == capacity, count == slots.count, count > 0, bytes <= byteLimit {
            keptBytes += bytes - slots[head].bytes
            base = slots[head].change.revision
            slots[head] = Kept(change: change, bytes: bytes)
            head += 1
            if head == slots.count { head = 0 }
            // The new change, now the newest, fits on its own: only older ones can need to go.
            while keptBytes > byteLimit { dropOldest() }
            return
        }
        keptBytes += bytes
        // The oldest go first; the new change itself only once every older one is gone.
        while count > 0, count >= capacity || keptBytes > byteLimit { dropOldest() }
        if capacity == 0 || keptBytes > byteLimit {
            keptBytes -= bytes
            base = change.revision
            return
        }
        if count == slots.count { grow() }
        var tail = head + count
        if tail >= slots.count { tail -= slots.count }
        slots[tail] = Kept(change: change, bytes: bytes)
        count += 1
    }

    private mutating func dropOldest() {
        keptBytes -= slots[head].bytes
        base = slots[head].change.revision
        slots[head] = Self.vacant
        head += 1
        if head == slots.count { head = 0 }
        count -= 1
    }

    /// Makes room for more changes: twice as many slots (at most `capacity`), the kept ones first. The array grows in
    /// place when the oldest change is in its first slot, as it always is until a byte limit drops changes: its
    /// elements are then moved as they are, not copied one by one.
    private mutating func grow() {
        let size = min(capacity, max(16, slots.count * 2))
        if head != 0 {
            var moved = [Kept](repeating: Self.vacant, count: count)
            for offset in 0..<count { swap(&moved[offset], &slots[slot(offset)]) }
            slots = moved
            head = 0
        }
        slots.reserveCapacity(size)
        slots.append(contentsOf: repeatElement(Self.vacant, count: size - slots.count))
    }

    /// The slot of the kept change `offset` places after the oldest.
    private func slot(_ offset: Int) -> Int {
        let index = head + offset
        return index < slots.count ? index : index - slots.count
    }

    /// Every kept change with a revision above `revision`, in order; `nil` when some of them were compacted away
    /// (`revision` is older than `base`).
    public func changes(after revision: Revision) -> [RevisionedChange]? {
        guard revision >= base else { return nil }
        let skip = Int(min(revision - base, UInt64(count)))
        var result: [RevisionedChange] = []
        result.reserveCapacity(count - skip)
        for offset in skip..<count { result.append(slots[slot(offset)].change) }
        return result
    }
}
