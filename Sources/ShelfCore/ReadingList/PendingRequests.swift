/// The requests a `ReadingList` has decided and not yet answered, in ticket (= arrival) order: a queue with O(1)
/// append and removal from the front (`FrontQueue`), O(log n) look-up by ticket and an O(1) "is every one saved?".
///
/// A connection may pipeline a thousand requests and there may be a thousand connections, so this can hold a
/// million entries while a slow disk catches up; nothing here may cost time proportional to that per request.
struct PendingRequests {
    private var queue = FrontQueue<ReadingList.Entry>()
    /// How many entries are not saved yet.
    private var unsaved = 0

    var isEmpty: Bool { queue.isEmpty }
    var count: Int { queue.count }
    /// True when no entry waits for the store: each is saved, writes nothing, or was rolled back.
    var allSaved: Bool { unsaved == 0 }

    /// Appends `entry`, whose ticket is higher than every ticket already here.
    mutating func append(_ entry: ReadingList.Entry) {
        if !entry.saved { unsaved += 1 }
        queue.append(entry)
    }

    /// The position of the entry with `ticket`, by binary search (tickets only grow).
    func position(of ticket: UInt64) -> Int? {
        var low = queue.positions.lowerBound
        var high = queue.positions.upperBound
        while low < high {
            let middle = (low + high) / 2
            if queue[middle].ticket < ticket { low = middle + 1 } else { high = middle }
        }
        return low < queue.positions.upperBound && queue[low].ticket == ticket ? low : nil
    }

    func contains(ticket: UInt64) -> Bool { position(of: ticket) != nil }

    subscript(position: Int) -> ReadingList.Entry { queue[position] }

    /// Marks the entry at `position` saved.
    mutating func markSaved(at position: Int) {
        guard !queue[position].saved else { return }
        queue[position].saved = true
        unsaved -= 1
    }

    mutating func setReceiver(_ receiver: any AnswerReceiver, at position: Int) {
        queue[position].receiver = receiver
    }

    /// After a failed save: marks the saved entries at the front (`saved`, whose changes the caller has just
    /// published) published, and rolls back every entry behind them. Those are answered `failure` instead of
    /// their own outcome and count as saved, so the usual publish answers them all, from the front, a turn at a
    /// time.
    mutating func rollBack(keeping saved: Range<Int>, failing failure: ReadingList.Outcome) {
        for position in saved { queue[position].published = true }
        for position in saved.upperBound..<queue.positions.upperBound {
            queue[position].outcome = failure
            queue[position].published = true
            markSaved(at: position)
        }
    }

    /// The positions of the saved entries at the front, at most `limit` of them.
    func savedPrefix(limit: Int = .max) -> Range<Int> {
        let positions = queue.positions
        var end = positions.lowerBound
        while end < positions.upperBound, end - positions.lowerBound < limit, queue[end].saved { end += 1 }
        return positions.lowerBound..<end
    }

    /// Removes the first `count` entries (at most all of them), appending them to `taken`.
    mutating func removeFirst(_ count: Int, into taken: inout [ReadingList.Entry]) {
        let start = taken.count
        queue.removeFirst(count, into: &taken)
        for entry in taken[start...] where !entry.saved { unsaved -= 1 }
    }
}
