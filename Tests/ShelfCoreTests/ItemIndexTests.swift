import Foundation
@testable import ShelfCore
import ShelfTestSupport
import Testing

/// `ItemIndex`: the open-addressing table behind `ItemCollection`'s lookups, checked against a plain dictionary.
struct ItemIndexTests {
    @Test("20,000 random inserts and removals give the same answers as a dictionary, at every size it grows through")
    func matchesDictionary() {
        var random = SplitMix64(seed: 7)
        var index = ItemIndex()
        var slots: [Item?] = []
        var reference: [UUID: Int] = [:]
        var live: [UUID] = []
        for step in 0..<20_000 {
            // Two inserts for every removal, so the table grows through several sizes with long probe runs.
            if live.isEmpty || random.next() % 3 != 0 {
                let id = UUID(uuid: withUnsafeBytes(of: (random.next(), random.next())) { raw in
                    raw.load(as: uuid_t.self)
                })
                #expect(index.insert(id, at: slots.count, in: slots) == nil)
                reference[id] = slots.count
                slots.append(itemWith(id: id, revision: Revision(step)))
                live.append(id)
            } else {
                let victim = live.remove(at: Int(random.next() % UInt64(live.count)))
                let position = index.remove(victim, in: slots)
                #expect(position == reference.removeValue(forKey: victim))
                if let position { slots[position] = nil }
            }
            #expect(index.count == reference.count)
            if step % 997 == 0 {
                for (id, position) in reference { #expect(index.position(of: id, in: slots) == position) }
            }
        }
        for (id, position) in reference { #expect(index.position(of: id, in: slots) == position) }
    }

    @Test("an id already present is refused with its position, and nothing changes")
    func duplicateInsert() {
        var index = ItemIndex()
        let first = item(1, "One", revision: 1)
        let second = item(2, "Two", revision: 2)
        let slots: [Item?] = [first, second]
        #expect(index.insert(first.id, at: 0, in: []) == nil)
        #expect(index.insert(second.id, at: 1, in: [first]) == nil)
        #expect(index.insert(first.id, at: 2, in: slots) == 0)
        #expect(index.count == 2)
        #expect(index.position(of: first.id, in: slots) == 0)
        #expect(index.position(of: second.id, in: slots) == 1)
    }

    @Test("removing from the middle of a probe run keeps every later entry of the run reachable")
    func removalInsideProbeRuns() {
        // 12 entries in a 16-bucket table (its first size): runs of several entries are certain.
        var index = ItemIndex()
        let items = (1...12).map { item(UInt64($0), "Item \($0)", revision: Revision($0)) }
        var slots: [Item?] = []
        for item in items {
            #expect(index.insert(item.id, at: slots.count, in: slots) == nil)
            slots.append(item)
        }
        for (removedCount, victim) in items.enumerated() {
            #expect(index.remove(victim.id, in: slots) == removedCount)
            slots[removedCount] = nil
            #expect(index.position(of: victim.id, in: slots) == nil)
            for (position, kept) in items.enumerated().dropFirst(removedCount + 1) {
                #expect(index.position(of: kept.id, in: slots) == position)
            }
        }
        #expect(index.count == 0)
    }

    @Test("an id that was never added is not found, and removing it changes nothing")
    func missingID() {
        var index = ItemIndex()
        let present = item(1, "One", revision: 1)
        let absent = item(2, "Two", revision: 2)
        let slots: [Item?] = [present]
        #expect(index.insert(present.id, at: 0, in: []) == nil)
        #expect(index.position(of: absent.id, in: slots) == nil)
        #expect(index.remove(absent.id, in: slots) == nil)
        #expect(index.count == 1)
    }

    private func itemWith(id: UUID, revision: Revision) -> Item {
        Item(id: id, title: "Item", isRead: false, addedAt: FixedClock.start, revision: revision)
    }
}
