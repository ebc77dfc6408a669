import Foundation
@testable import ShelfCore
import Testing

/// `ItemCollection`: insertion order, lookup by id, and compaction after many removals.
struct ItemCollectionTests {
    private func items(_ count: Int) -> [Item] {
        (1...count).map { item(UInt64($0), "Item \($0)", revision: Revision($0)) }
    }

    @Test("insertion order and lookups survive 150 scattered removals out of 200 (compaction included)")
    func orderAcrossManyRemovals() throws {
        let all = items(200)
        var collection = try ItemCollection.make(all).get()
        // Remove every index not divisible by 4, in a scattered order (stride 7 through 0..<200 visits each once).
        let removedIndices = (0..<200).map { $0 * 7 % 200 }.filter { $0 % 4 != 0 }
        #expect(removedIndices.count == 150)
        #expect(Set(removedIndices).count == 150)

        for (step, index) in removedIndices.enumerated() {
            let removed = collection.remove(id: all[index].id)
            #expect(removed == all[index])
            #expect(collection.count == 200 - step - 1)
        }

        let kept = all.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
        #expect(collection.count == 50)
        #expect(collection.items == kept)
        for (index, item) in all.enumerated() {
            #expect(collection[item.id] == (index % 4 == 0 ? item : nil))
        }
        #expect(collection == (try ItemCollection.make(kept).get()))
    }

    @Test("after compaction, updates, removals and appends still go to the right place")
    func operationsAfterCompaction() throws {
        let all = items(200)
        var collection = try ItemCollection.make(all).get()
        for item in all[0..<150] { collection.remove(id: item.id) }
        #expect(collection.items == Array(all[150...]))

        var updated = all[170]
        updated.isRead = true
        updated.title = "Updated"
        let replaced = collection.replace(updated)
        #expect(replaced)
        #expect(collection[updated.id] == updated)
        let removed = collection.remove(id: all[199].id)
        #expect(removed == all[199])
        let extra = item(500, "Extra", revision: 201)
        let appended = collection.append(extra)
        #expect(appended)

        var expected = Array(all[150..<199])
        expected[20] = updated
        expected.append(extra)
        #expect(collection.items == expected)
        #expect(collection.count == 50)
        #expect(collection[all[10].id] == nil)
    }

    @Test("removing everything, then adding again, starts a fresh order")
    func removeAllThenAdd() throws {
        let all = items(100)
        var collection = try ItemCollection.make(all).get()
        for item in all.reversed() { collection.remove(id: item.id) }
        #expect(collection.count == 0)
        #expect(collection.items.isEmpty)

        let appended = [collection.append(all[5]), collection.append(all[2])]
        #expect(appended == [true, true])
        #expect(collection.items == [all[5], all[2]])
    }

    @Test("building from items with a repeated id fails, naming the id")
    func makeRejectsDuplicates() {
        let one = item(1, "One", revision: 1)
        let two = item(2, "Two", revision: 2)
        let again = item(1, "Other title", revision: 3)

        let result = ItemCollection.make([one, two, again])

        guard case .failure(let duplicate) = result else {
            Issue.record("expected a duplicate id, got \(result)")
            return
        }
        #expect(duplicate.id == one.id)
    }

    @Test("append, replace and remove refuse what does not fit and change nothing")
    func refusals() throws {
        let one = item(1, "One", revision: 1)
        var collection = try ItemCollection.make([one]).get()

        let appended = collection.append(item(1, "Clash", revision: 2))
        let replaced = collection.replace(item(2, "Missing", revision: 2))
        let removed = collection.remove(id: SequentialIDs.id(2))

        #expect(!appended)
        #expect(!replaced)
        #expect(removed == nil)
        #expect(collection.items == [one])
    }

    @Test("apply adds, updates and removes, and refuses changes that do not fit")
    func applyChanges() throws {
        let one = item(1, "One", revision: 1)
        var read = one
        read.isRead = true
        var collection = ItemCollection()

        let fits = [
            collection.apply(.added(one)),
            collection.apply(.added(one)),
            collection.apply(.updated(read)),
            collection.apply(.updated(item(2, "Missing", revision: 2))),
        ]
        #expect(fits == [true, false, true, false])
        #expect(collection.items == [read])

        let removals = [collection.apply(.removed(one.id)), collection.apply(.removed(one.id))]
        #expect(removals == [true, false])
        #expect(collection.count == 0)
    }

    @Test("two collections with the same items in the same order are equal, whatever their history")
    func equality() throws {
        let all = items(3)
        var withHole = try ItemCollection.make(all).get()
        withHole.remove(id: all[1].id)

        #expect(withHole == (try ItemCollection.make([all[0], all[2]]).get()))
        #expect(withHole != (try ItemCollection.make([all[2], all[0]]).get()))
    }

    @Test("after a snapshot, an append, a replace and a removal each copy one page and at most one index shard; the snapshot keeps its items")
    func changesAfterASnapshotCopyOnePage() throws {
        let all = items(5000)
        let original = try ItemCollection.make(all).get()
        var collection = original
        let pages = original.pageAddresses
        let shards = original.indexShardAddresses
        #expect(pages.count == 5)
        // A change may copy one shard: 1/64 of the index.
        #expect(shards.count == 64)

        let appended = collection.append(item(9001, "Extra", revision: 9001))
        #expect(appended)
        #expect(differences(collection.pageAddresses, pages) == [4])
        #expect(differences(collection.indexShardAddresses, shards).count == 1)

        collection = original
        var renamed = all[1500]
        renamed.title = "Renamed"
        let replaced = collection.replace(renamed)
        #expect(replaced)
        #expect(differences(collection.pageAddresses, pages) == [1])
        #expect(collection.indexShardAddresses == shards)

        collection = original
        let removed = collection.remove(id: all[10].id)
        #expect(removed == all[10])
        #expect(differences(collection.pageAddresses, pages) == [0])
        #expect(differences(collection.indexShardAddresses, shards).count == 1)

        #expect(original.pageAddresses == pages)
        #expect(original.indexShardAddresses == shards)
        #expect(original.items == all)
        #expect(original[all[10].id] == all[10])
    }

    @Test("positions across page boundaries: items 1,023 to 1,025 and 2,048 are found, replaced and removed")
    func pageBoundaries() throws {
        let all = items(2100)
        var collection = try ItemCollection.make(all).get()
        for index in [0, 1022, 1023, 1024, 2047, 2048, 2099] {
            #expect(collection[all[index].id] == all[index])
            var updated = all[index]
            updated.isRead = true
            let replaced = collection.replace(updated)
            #expect(replaced)
            #expect(collection[all[index].id] == updated)
        }
        let removed = collection.remove(id: all[1024].id)
        #expect(removed?.id == all[1024].id)
        #expect(collection[all[1024].id] == nil)
        #expect(collection.count == 2099)
        #expect(collection.items.map(\.id) == all.map(\.id).filter { $0 != all[1024].id })
    }

    @Test("iterating skips a page left all holes, a hole at each page's first and last slot, and keeps returning nil at the end")
    func iterationOverHoles() throws {
        let all = items(3000)
        var collection = try ItemCollection.make(all).get()
        // Page 2 (slots 1,024 to 2,047) emptied, and the first and last slot of page 1 and page 3's first: 1,027
        // holes among 3,000 slots, too few to compact.
        let removed = Set(Array(1024..<2048) + [0, 1023, 2048])
        for index in removed { collection.remove(id: all[index].id) }
        let expected = all.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        var iterator = collection.makeIterator()
        var seen: [Item] = []
        while let item = iterator.next() { seen.append(item) }
        #expect(seen == expected)
        #expect(iterator.next() == nil)
        #expect(Array(ItemCollection()) == [])
    }

    @Test("a list that shrank is compacted into an index sized for what is left")
    func compactionShrinksTheIndex() throws {
        let all = items(20_000)
        var collection = try ItemCollection.make(all).get()
        let grown = collection.indexCapacity
        for item in all.dropFirst(100) { collection.remove(id: item.id) }
        #expect(collection.count == 100)
        #expect(collection.items == Array(all.prefix(100)))
        #expect(collection.indexCapacity * 20 < grown, "\(collection.indexCapacity) buckets left of \(grown)")
        #expect(all.prefix(100).allSatisfy { collection[$0.id] == $0 })
    }

    /// The indices where two address lists differ.
    private func differences(_ lhs: [UInt], _ rhs: [UInt]) -> [Int] {
        zip(lhs, rhs).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
    }
}
