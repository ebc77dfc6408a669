import Foundation

/// The items of a list in the order they were added, with O(1) lookup, update and removal by id.
///
/// Removal leaves a hole that is reclaimed once holes outnumber live items, so every operation is amortised O(1)
/// and iteration stays in insertion order.
public struct ItemCollection: Sendable, Equatable, Sequence {
    private var slots: [Item?] = []
    private var positions = ItemIndex()

    /// An empty collection.
    public init() {}

    /// Builds a collection from items in order; fails with the first id that appears twice.
    public static func make(_ items: [Item]) -> Result<ItemCollection, DuplicateID> {
        var collection = ItemCollection()
        collection.slots.reserveCapacity(items.count)
        collection.positions = ItemIndex(minimumCapacity: items.count)
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
    public var items: [Item] { slots.compactMap { $0 } }

    /// Iterates the items in insertion order without copying them into an array.
    public func makeIterator() -> some IteratorProtocol<Item> {
        slots.lazy.compactMap { $0 }.makeIterator()
    }

    /// The item with `id`, if present.
    public subscript(id: UUID) -> Item? {
        guard let position = positions.position(of: id, in: slots) else { return nil }
        return slots[position]
    }

    /// Appends `item`; returns false (and changes nothing) when its id is already present.
    @discardableResult
    public mutating func append(_ item: Item) -> Bool {
        // One hash probe: a duplicate is found on the way to the free bucket.
        if positions.insert(item.id, at: slots.count, in: slots) != nil { return false }
        slots.append(item)
        return true
    }

    /// Replaces the item with the same id; returns false when there is none.
    @discardableResult
    public mutating func replace(_ item: Item) -> Bool {
        guard let position = positions.position(of: item.id, in: slots) else { return false }
        slots[position] = item
        return true
    }

    /// Removes and returns the item with `id`.
    @discardableResult
    public mutating func remove(id: UUID) -> Item? {
        guard let position = positions.remove(id, in: slots) else { return nil }
        let removed = slots[position]
        slots[position] = nil
        if slots.count > 64, slots.count > 2 * positions.count { compact() }
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

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        positions.removeAll()
        for (position, item) in slots.enumerated() {
            if let item { _ = positions.insert(item.id, at: position, in: slots) }
        }
    }

    /// Equal when the same items are there in the same order (holes left by removals do not count).
    public static func == (lhs: ItemCollection, rhs: ItemCollection) -> Bool {
        lhs.count == rhs.count && lhs.items == rhs.items
    }
}
