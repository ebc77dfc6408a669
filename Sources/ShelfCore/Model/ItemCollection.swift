import Foundation

/// The items of a list in the order they were added, with O(1) lookup, update and removal by id.
///
/// Items sit in pages of `pageSize` slots, found by position (`position / pageSize`, `position % pageSize`).
/// The collection is a value every snapshot of the list shares; paging makes the first change after a snapshot
/// copy one page and one index shard (`ItemIndex`) instead of the whole list, and appending never moves the
/// items already there. With a million items, a `list` being encoded used to make the next change copy 70-90 MB
/// on the event loop (56 bytes a slot, 8 an index entry): 63-73 ms, against 0.5 ms now.
///
/// Removal leaves a hole that is reclaimed once holes outnumber live items, so every operation is amortised O(1)
/// and iteration stays in insertion order.
public struct ItemCollection: Sendable, Equatable, Sequence {
    private var pages: [[Item?]] = []
    /// Slots in use, holes included: the next item goes to position `slotCount`.
    private var slotCount = 0
    private var positions = ItemIndex()

    /// Slots per page.
    static let pageSize = 1024

    /// An empty collection.
    public init() {}

    /// An empty collection with room for `minimumCapacity` items, so that appending as many does not regrow it.
    init(minimumCapacity: Int) {
        pages.reserveCapacity(minimumCapacity / Self.pageSize + 1)
        positions = ItemIndex(minimumCapacity: minimumCapacity)
    }

    /// Builds a collection from items in order; fails with the first id that appears twice.
    public static func make(_ items: [Item]) -> Result<ItemCollection, DuplicateID> {
        var collection = ItemCollection(minimumCapacity: items.count)
        for item in items where !collection.append(item) {
            return .failure(DuplicateID(id: item.id))
        }
        return .success(collection)
    }

    /// The id that appeared twice when building a collection.
    public struct DuplicateID: Error, Equatable, Sendable {
        /// The id found twice.
        public let id: UUID
    }

    /// The number of items.
    public var count: Int { positions.count }

    /// The items in insertion order.
    public var items: [Item] {
        var items: [Item] = []
        items.reserveCapacity(count)
        for page in pages {
            for slot in page { if let slot { items.append(slot) } }
        }
        return items
    }

    /// Iterates the items in insertion order without copying them into an array.
    public func makeIterator() -> Iterator {
        Iterator(pages: pages)
    }

    /// The items in insertion order, page by page, holes skipped: a plain walk over the slots, since every
    /// compaction and uncached `list` walks the whole list (a lazy `joined().compactMap` costs several times more).
    public struct Iterator: IteratorProtocol {
        private let pages: [[Item?]]
        private var page = 0
        private var slot = 0

        fileprivate init(pages: [[Item?]]) {
            self.pages = pages
        }

        /// The next item in insertion order; `nil` once every item was given, and from then on.
        public mutating func next() -> Item? {
            while page < pages.count {
                guard slot < pages[page].count else {
                    page += 1
                    slot = 0
                    continue
                }
                let item = pages[page][slot]
                slot += 1
                if let item { return item }
            }
            return nil
        }
    }

    /// The item with `id`, if present.
    public subscript(id: UUID) -> Item? {
        guard let position = positions.position(of: id, idAt: { Self.id(at: $0, in: pages) }) else { return nil }
        return slot(position)
    }

    /// Appends `item`; returns false (and changes nothing) when its id is already present.
    @discardableResult
    public mutating func append(_ item: Item) -> Bool {
        // One hash probe: a duplicate is found on the way to the free bucket.
        if positions.insert(item.id, at: slotCount, idAt: { Self.id(at: $0, in: pages) }) != nil { return false }
        if slotCount % Self.pageSize == 0 {
            var page: [Item?] = []
            page.reserveCapacity(Self.pageSize)
            pages.append(page)
        }
        pages[pages.count - 1].append(item)
        slotCount += 1
        return true
    }

    /// Reads the index buckets that items with `ids` will be appended at (`ItemIndex.touch(_:)`).
    /// - Returns: a meaningless value to keep, so the reads are not optimised away.
    func touchIndex(for ids: ArraySlice<UUID>) -> UInt64 {
        var folded: UInt64 = 0
        for id in ids { folded ^= positions.touch(id) }
        return folded
    }

    /// Replaces the item with the same id; returns false when there is none.
    @discardableResult
    public mutating func replace(_ item: Item) -> Bool {
        guard let position = positions.position(of: item.id, idAt: { Self.id(at: $0, in: pages) }) else { return false }
        pages[position / Self.pageSize][position % Self.pageSize] = item
        return true
    }

    /// Removes and returns the item with `id`.
    @discardableResult
    public mutating func remove(id: UUID) -> Item? {
        guard let position = positions.remove(id, idAt: { Self.id(at: $0, in: pages) }) else { return nil }
        let removed = slot(position)
        pages[position / Self.pageSize][position % Self.pageSize] = nil
        if slotCount > 64, slotCount > 2 * positions.count { compact() }
        return removed
    }

    /// Applies an accepted change; returns false when it does not fit (adding a present id, touching a missing one).
    @discardableResult
    public mutating func apply(_ change: ListChange) -> Bool {
        switch change {
        case .added(let item): append(item)
        case .updated(let item): replace(item)
        case .removed(let id): remove(id: id) != nil
        }
    }

    /// Where each page's slots are stored (for tests: after a change, the pages it did not touch are still the
    /// ones a snapshot shares).
    var pageAddresses: [UInt] {
        pages.map { page in page.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
    }

    /// Where each index shard is stored (see `pageAddresses`).
    var indexShardAddresses: [UInt] { positions.shardAddresses }

    /// Buckets in the index (for tests).
    var indexCapacity: Int { positions.capacity }

    private func slot(_ position: Int) -> Item? {
        pages[position / Self.pageSize][position % Self.pageSize]
    }

    private static func id(at position: Int, in pages: [[Item?]]) -> UUID? {
        pages[position / pageSize][position % pageSize]?.id
    }

    private mutating func compact() {
        let live = items
        pages = []
        slotCount = 0
        // Sized for what is left: emptying the old index would keep (and zero) tables sized for the list at its
        // largest, on every compaction after it shrank.
        positions = ItemIndex(minimumCapacity: live.count)
        for item in live { append(item) }
    }

    /// Equal when the same items are there in the same order (holes left by removals do not count).
    public static func == (lhs: ItemCollection, rhs: ItemCollection) -> Bool {
        lhs.count == rhs.count && lhs.items == rhs.items
    }
}
