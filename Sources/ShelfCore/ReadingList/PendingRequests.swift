/// The requests a `ReadingList` has decided and not yet answered, in ticket (= arrival) order: a queue with O(1)
/// append and removal from the front, O(log n) look-up by ticket and an O(1) "is every one saved?".
///
/// A connection may pipeline a thousand requests and there may be a thousand connections, so this can hold a
/// million entries while a slow disk catches up; nothing here may cost time proportional to that per request.
struct PendingRequests {
    private var storage: [ReadingList.Entry] = []
    /// Index of the front entry in `storage`; entries before it were answered.
    private var head = 0
    /// How many entries are not saved yet.
    private var unsaved = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    /// True when every entry's change is saved (or it writes nothing).
    var allSaved: Bool { unsaved == 0 }

    /// Appends `entry`, whose ticket is higher than every ticket already here.
    mutating func append(_ entry: ReadingList.Entry) {
        if !entry.saved { unsaved += 1 }
        storage.append(entry)
    }

    /// The position of the entry with `ticket`, by binary search (tickets only grow).
    func position(of ticket: UInt64) -> Int? {
        var low = head
        var high = storage.count
        while low < high {
            let middle = (low + high) / 2
            if storage[middle].ticket < ticket { low = middle + 1 } else { high = middle }
        }
        return low < storage.count && storage[low].ticket == ticket ? low : nil
    }

    func contains(ticket: UInt64) -> Bool { position(of: ticket) != nil }

    subscript(position: Int) -> ReadingList.Entry { storage[position] }

    /// Marks the entry at `position` saved.
    mutating func markSaved(at position: Int) {
        guard !storage[position].saved else { return }
        storage[position].saved = true
        unsaved -= 1
    }

    mutating func setReceiver(_ receiver: @escaping @Sendable (ReadingList.Outcome) -> Void, at position: Int) {
        storage[position].receiver = receiver
    }

    /// The positions of the saved entries at the front, at most `limit` of them.
    func savedPrefix(limit: Int = .max) -> Range<Int> {
        var end = head
        while end < storage.count, end - head < limit, storage[end].saved { end += 1 }
        return head..<end
    }

    /// Removes and returns the first `count` entries.
    mutating func removeFirst(_ count: Int) -> [ReadingList.Entry] {
        let taken = Array(storage[head..<head + count])
        for entry in taken where !entry.saved { unsaved -= 1 }
        head += count
        // Give the answered slots back once they are most of the array (amortised O(1) per entry).
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 1024)
            head = 0
        } else if head >= 1024, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return taken
    }

    /// Removes and returns every entry.
    mutating func removeAll() -> [ReadingList.Entry] {
        removeFirst(count)
    }
}
