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
                #expect(index.insert(id, at: slots.count, idAt: { slots[$0]?.id }) == nil)
                reference[id] = slots.count
                slots.append(itemWith(id: id, revision: Revision(step)))
                live.append(id)
            } else {
                let victim = live.remove(at: Int(random.next() % UInt64(live.count)))
                let position = index.remove(victim, idAt: { slots[$0]?.id })
                #expect(position == reference.removeValue(forKey: victim))
                if let position { slots[position] = nil }
            }
            #expect(index.count == reference.count)
            if step % 997 == 0 {
                for (id, position) in reference { #expect(index.position(of: id, idAt: { slots[$0]?.id }) == position) }
            }
        }
        for (id, position) in reference { #expect(index.position(of: id, idAt: { slots[$0]?.id }) == position) }
    }

    @Test("an id already present is refused with its position, and nothing changes")
    func duplicateInsert() {
        var index = ItemIndex()
        let first = item(1, "One", revision: 1)
        let second = item(2, "Two", revision: 2)
        let slots: [Item?] = [first, second]
        #expect(index.insert(first.id, at: 0, idAt: { _ in nil }) == nil)
        #expect(index.insert(second.id, at: 1, idAt: { [first][$0].id }) == nil)
        #expect(index.insert(first.id, at: 2, idAt: { slots[$0]?.id }) == 0)
        #expect(index.count == 2)
        #expect(index.position(of: first.id, idAt: { slots[$0]?.id }) == 0)
        #expect(index.position(of: second.id, idAt: { slots[$0]?.id }) == 1)
    }

    @Test("removing entries from the middle of probe runs keeps every other entry reachable")
    func removalInsideProbeRuns() {
        // 1,000 entries over 64 shards of 32 buckets: runs of several entries are certain.
        var index = ItemIndex()
        let items = (1...1000).map { item(UInt64($0), "Item \($0)", revision: Revision($0)) }
        var slots: [Item?] = []
        for item in items {
            #expect(index.insert(item.id, at: slots.count, idAt: { slots[$0]?.id }) == nil)
            slots.append(item)
        }
        for position in stride(from: 0, to: items.count, by: 2) {
            #expect(index.remove(items[position].id, idAt: { slots[$0]?.id }) == position)
            slots[position] = nil
        }
        #expect(index.count == 500)
        for (position, item) in items.enumerated() {
            #expect(index.position(of: item.id, idAt: { slots[$0]?.id }) == (position % 2 == 0 ? nil : position))
        }
    }

    @Test("an id that was never added is not found, and removing it changes nothing")
    func missingID() {
        var index = ItemIndex()
        let present = item(1, "One", revision: 1)
        let absent = item(2, "Two", revision: 2)
        let slots: [Item?] = [present]
        #expect(index.insert(present.id, at: 0, idAt: { _ in nil }) == nil)
        #expect(index.position(of: absent.id, idAt: { slots[$0]?.id }) == nil)
        #expect(index.remove(absent.id, idAt: { slots[$0]?.id }) == nil)
        #expect(index.count == 1)
    }

    private func itemWith(id: UUID, revision: Revision) -> Item {
        Item(id: id, title: "Item", isRead: false, addedAt: FixedClock.start, revision: revision)
    }
}
