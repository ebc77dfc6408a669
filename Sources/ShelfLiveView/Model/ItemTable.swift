import Foundation
import ShelfCore

/// The list as the live view filters it: every item in the list's order, each in a slot, with what the filters read
/// kept flat beside it (read flags, and each item's `ItemSearchKey` in one byte buffer), so filtering 100,000 items
/// on a key reads bytes and flags instead of copying items. Rows are slot numbers in ascending order, which is the
/// list's order, so an item's row is found by binary search.
///
/// A removal leaves an empty slot and a change leaves its old key bytes behind; `needsCompaction` says when that
/// waste outgrows the live part, and the owner then builds the table afresh (amortised O(1) per change).
struct ItemTable: Sendable {
    /// Items by slot; a removed one stays until the table is built afresh, its key emptied (`matches` skips it).
    private(set) var items: [Item] = []
    private var isRead: [Bool] = []
    /// Each slot's key: `keys[keyStart[slot]..<keyEnd[slot]]`.
    private var keyStart: [Int] = []
    private var keyEnd: [Int] = []
    private var keys: [UInt8] = []
    private var slots: [UUID: Int] = [:]
    /// Key bytes no slot uses any more.
    private var wastedKeyBytes = 0

    /// The items in a table, in order.
    init(_ items: some Sequence<Item>) {
        for item in items { upsert(item) }
    }

    /// Whether removed slots or stale key bytes outweigh the live ones.
    var needsCompaction: Bool {
        let removed = items.count - slots.count
        return (removed > 1024 && removed > slots.count) || (wastedKeyBytes > 65536 && wastedKeyBytes > keys.count / 2)
    }

    /// The slot of `id`, if present.
    func slot(of id: UUID) -> Int? { slots[id] }

    /// Puts `item` in its slot, or in a new last slot when its id is new.
    /// - Returns: its slot.
    @discardableResult
    mutating func upsert(_ item: Item) -> Int {
        let start = keys.count
        ItemSearchKey.append(item, to: &keys)
        if let slot = slots[item.id] {
            wastedKeyBytes += keyEnd[slot] - keyStart[slot]
            items[slot] = item
            isRead[slot] = item.isRead
            keyStart[slot] = start
            keyEnd[slot] = keys.count
            return slot
        }
        let slot = items.count
        slots[item.id] = slot
        items.append(item)
        isRead.append(item.isRead)
        keyStart.append(start)
        keyEnd.append(keys.count)
        return slot
    }

    /// Empties the slot of `id`.
    /// - Returns: the slot it had; `nil` when absent.
    @discardableResult
    mutating func remove(_ id: UUID) -> Int? {
        guard let slot = slots.removeValue(forKey: id) else { return nil }
        wastedKeyBytes += keyEnd[slot] - keyStart[slot]
        keyEnd[slot] = keyStart[slot]
        return slot
    }

    /// A query's filters prepared once for many slots.
    struct Filter {
        let query: ItemQuery
        let needle: ItemSearchKey.Needle?
        /// Set when the query has text but no needle to look for in keys (the text holds a NUL byte or folds to
        /// nothing): each item is then matched by `ItemQuery`'s own matcher, built here once rather than per item.
        let itemByItem: ItemQuery.Matcher?
        /// The tags, folded as `ItemQuery` compares them.
        let tags: Set<String>

        init(_ query: ItemQuery) {
            self.query = query
            needle = query.text.flatMap(ItemSearchKey.Needle.init)
            itemByItem = query.text != nil && needle == nil ? ItemQuery.Matcher(query) : nil
            tags = Set(query.tags.map { $0.lowercased() })
        }
    }

    /// Whether the item in `slot` passes `filter`.
    func matches(_ slot: Int, _ filter: Filter) -> Bool {
        // A live slot's key holds at least the title's NUL byte; a removed one is empty.
        guard keyEnd[slot] > keyStart[slot] else { return false }
        if let matcher = filter.itemByItem { return matcher.matches(items[slot]) }
        switch filter.query.filter {
        case .all: break
        case .read: if !isRead[slot] { return false }
        case .unread: if isRead[slot] { return false }
        }
        if !filter.tags.isEmpty, !filter.tags.isSubset(of: items[slot].tags) { return false }
        guard let needle = filter.needle else { return true }
        return keys.withUnsafeBufferPointer { keys in
            needle.occurs(in: UnsafeBufferPointer(rebasing: keys[keyStart[slot]..<keyEnd[slot]]))
        }
    }

    /// The slots whose items pass `query`, in order; only those among `candidates` when given (ascending).
    func rows(passing query: ItemQuery, among candidates: [Int]? = nil) -> [Int] {
        let filter = Filter(query)
        if let candidates { return candidates.filter { matches($0, filter) } }
        return keyStart.indices.filter { matches($0, filter) }
    }
}
