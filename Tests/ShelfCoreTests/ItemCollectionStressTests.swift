import Foundation
@testable import ShelfCore
import ShelfTestSupport
import Testing

/// `ItemCollection` and its index under long seeded random runs, checked against plain arrays and dictionaries.
struct ItemCollectionStressTests {
    @Test("30,000 random appends, replaces and removals, with snapshots along the way: every snapshot keeps its items and lookups", arguments: [1, 2] as [UInt64])
    func randomChangesWithSnapshots(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var collection = ItemCollection()
        var reference: [Item] = []
        var snapshots: [(collection: ItemCollection, items: [Item])] = []
        for step in 0..<30_000 {
            let choice = random.next() % 10
            // Mostly growth at first, then mostly shrinking, so compactions happen.
            if reference.isEmpty || choice < 5 && step < 15_000 || choice < 3 {
                let item = Item(id: randomID(&random), title: "t\(step)", isRead: false, addedAt: FixedClock.start, revision: Revision(step))
                let appended = collection.append(item)
                #expect(appended)
                reference.append(item)
            } else if choice < 6 {
                let index = Int(random.next() % UInt64(reference.count))
                var item = reference[index]
                item.revision = Revision(step)
                item.isRead.toggle()
                let replaced = collection.replace(item)
                #expect(replaced)
                reference[index] = item
            } else {
                let index = Int(random.next() % UInt64(reference.count))
                let removed = collection.remove(id: reference[index].id)
                #expect(removed == reference[index])
                reference.remove(at: index)
            }
            if random.next() % 500 == 0 { snapshots.append((collection, reference)) }
            if step % 4999 == 0 {
                #expect(collection.items == reference)
                #expect(Array(collection) == reference)
                #expect(reference.allSatisfy { collection[$0.id] == $0 })
            }
        }
        #expect(collection.count == reference.count)
        #expect(collection.items == reference)
        #expect(snapshots.count > 10)
        for snapshot in snapshots {
            #expect(snapshot.collection.count == snapshot.items.count)
            #expect(snapshot.collection.items == snapshot.items)
            #expect(snapshot.items.allSatisfy { snapshot.collection[$0.id] == $0 })
        }
    }

    @Test("a shard whose entries share fingerprints and home buckets at the top of the table (probe runs wrap around) answers as a dictionary does", arguments: [5, 6] as [UInt64])
    func collidingHashes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var shard = ItemIndex.Shard(minimumCapacity: 0)
        var ids: [UUID?] = []
        var reference: [UUID: (position: Int, hash: UInt64)] = [:]
        var live: [UUID] = []
        // Equal 32-bit hashes, and homes at the very end of every table size.
        let hashes: [UInt64] = [0x03FF_FFFF, 0x03FF_FFFF, 0x0000_0000, 0x03FF_FFFE, 0xFFFF_FFFF, 0x0200_0000]
        for step in 0..<6000 {
            if live.isEmpty || random.next() % 3 != 0 {
                let id = randomID(&random)
                let hash = hashes[Int(random.next() % UInt64(hashes.count))]
                #expect(shard.insert(id, hash: hash, at: ids.count, idAt: { ids[$0] }) == nil)
                reference[id] = (ids.count, hash)
                ids.append(id)
                live.append(id)
            } else {
                let victim = live.remove(at: Int(random.next() % UInt64(live.count)))
                guard let stored = reference.removeValue(forKey: victim) else {
                    Issue.record("no reference entry for a live id")
                    return
                }
                #expect(shard.remove(victim, hash: stored.hash, idAt: { ids[$0] }) == stored.position)
                ids[stored.position] = nil
            }
            if step % 250 == 0 {
                #expect(reference.allSatisfy { shard.position(of: $0.key, hash: $0.value.hash, idAt: { ids[$0] }) == $0.value.position })
            }
        }
    }

    private func randomID(_ random: inout SplitMix64) -> UUID {
        UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { $0.load(as: uuid_t.self) })
    }
}
