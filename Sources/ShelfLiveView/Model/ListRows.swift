import ShelfCore

/// The rows of the live view: the items the filters let through, in the list's order, read from the model's table
/// by slot, so a new set of rows is an array of numbers rather than a copy of the items.
public struct ListRows: RandomAccessCollection, Sendable {
    /// Slots in the table, ascending.
    let slots: [Int]
    let table: ItemTable

    /// The first row.
    public var startIndex: Int { 0 }
    /// One past the last row.
    public var endIndex: Int { slots.count }

    /// The item on row `position`.
    public subscript(position: Int) -> Item { table.items[slots[position]] }

    /// The row of the item in `slot` among `slots`, if it is a row (binary search: slots ascend).
    static func row(ofSlot slot: Int, in slots: [Int]) -> Int? {
        let index = insertionPoint(ofSlot: slot, in: slots)
        return index < slots.count && slots[index] == slot ? index : nil
    }

    /// Where `slot` is or would go among `slots`.
    static func insertionPoint(ofSlot slot: Int, in slots: [Int]) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
