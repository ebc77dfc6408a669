/// An array consumed from the front: O(1) append, and removal of the first elements without shifting the rest each
/// time. The slots of removed elements are given back once they are most of the storage (amortised O(1) per
/// element), so a queue that never empties under steady load does not grow with everything it ever held.
///
/// Elements are addressed by position, a storage index that stays valid until the next `removeFirst`.
struct FrontQueue<Element> {
    private var storage: [Element] = []
    /// The position of the first element; the slots before it held removed ones.
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    /// The positions of the elements, front first.
    var positions: Range<Int> { head..<storage.count }
    /// Slots held, those of removed elements not yet given back included (for tests).
    var storedCount: Int { storage.count }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    subscript(position: Int) -> Element {
        get { storage[position] }
        set { storage[position] = newValue }
    }

    /// Removes and returns the first `count` elements (at most all of them).
    mutating func removeFirst(_ count: Int) -> [Element] {
        var taken: [Element] = []
        removeFirst(count, into: &taken)
        return taken
    }

    /// Removes the first `count` elements (at most all of them), appending them to `taken`: no allocation when
    /// `taken` has the room.
    mutating func removeFirst(_ count: Int, into taken: inout [Element]) {
        let end = min(storage.count, head + max(0, count))
        taken.append(contentsOf: storage[head..<end])
        head = end
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 1024)
            head = 0
        } else if head >= 1024, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}
