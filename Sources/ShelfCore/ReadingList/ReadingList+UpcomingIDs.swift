import Foundation

/// Ids for new items, drawn from `newID` in the order adds take them, sometimes ahead of time: a run of adds
/// submitted together (`submitAll`) draws its ids first and reads the index buckets they will go to, so that the
/// inserts, each a cache miss in a large list, overlap instead of stalling one after another. Which add gets which
/// id is the same either way: the n-th id drawn goes to the n-th add that is accepted.
extension ReadingList {
    /// The id for the next new item: the oldest one drawn ahead, else a new one from `newID`.
    func nextID() -> UUID {
        guard upcomingHead < upcomingIDs.count else { return newID() }
        let id = upcomingIDs[upcomingHead]
        upcomingHead += 1
        if upcomingHead == upcomingIDs.count {
            upcomingIDs.removeAll(keepingCapacity: true)
            upcomingHead = 0
        }
        return id
    }

    /// Makes sure the next `count` ids are drawn, and reads the index buckets of those not yet read.
    func drawIDsAhead(_ count: Int) {
        let fresh = upcomingIDs.count
        let missing = count - (upcomingIDs.count - upcomingHead)
        guard missing > 0 else { return }
        for _ in 0..<missing { upcomingIDs.append(newID()) }
        touchedBuckets ^= accepted.items.touchIndex(for: upcomingIDs[fresh...])
    }
}
