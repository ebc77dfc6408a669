import ShelfCore
import ShelfJSON
import ShelfWire
import Synchronization

/// The encoded `items` array of the latest `list` reply per filter, reused while the list stays at that revision:
/// many clients listing a large, unchanged list cost one encoding (the way Redis serves stored bytes).
final class ListReplyCache: Sendable {
    private let entries = Mutex<[ListFilter: (revision: Revision, bytes: [UInt8])]>([:])

    /// `[Item,…]` for `filter` over `snapshot`, from the cache when it was made at the same revision.
    func items(_ filter: ListFilter, of snapshot: ListSnapshot) -> [UInt8] {
        if let cached = entries.withLock({ $0[filter] }), cached.revision == snapshot.revision { return cached.bytes }
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(2 + snapshot.items.count * 150)
        var first = true
        for item in snapshot.items where filter.includes(item) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            item.appendJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        entries.withLock { $0[filter] = (snapshot.revision, bytes) }
        return bytes
    }
}
