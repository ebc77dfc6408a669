import Foundation
import ShelfCore
import Testing

/// `ChangeHistory` (the ring of recent changes) and `ReadingList.watch(since:register:)`.
struct ChangeHistoryTests {
    private func change(_ revision: Revision) -> RevisionedChange {
        RevisionedChange(revision: revision, change: .removed(SequentialIDs.id(revision)))
    }

    @Test("a history keeps the last changes up to its capacity and answers nil for compacted ones")
    func ring() {
        var history = ChangeHistory(capacity: 3, revision: 10)
        #expect(history.changes(after: 10) == [])
        #expect(history.changes(after: 9) == nil)

        for revision: Revision in 11...15 { history.append(change(revision)) }

        #expect(history.base == 12)
        #expect(history.changes(after: 12) == [change(13), change(14), change(15)])
        #expect(history.changes(after: 14) == [change(15)])
        #expect(history.changes(after: 15) == [])
        #expect(history.changes(after: 11) == nil)
    }

    @Test("a history with capacity 0 keeps nothing but follows the revision")
    func zeroCapacity() {
        var history = ChangeHistory(capacity: 0, revision: 0)
        history.append(change(1))
        history.append(change(2))

        #expect(history.base == 2)
        #expect(history.changes(after: 2) == [])
        #expect(history.changes(after: 1) == nil)
    }

    @Test("a history drops its oldest changes while they take more than its byte limit, and refuses a watch from before them")
    func byteLimit() async throws {
        let title = String(repeating: "t", count: 1000)
        let item = { (n: Int) in
            Item(id: SequentialIDs.id(UInt64(n)), title: title, isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: UInt64(n))
        }
        let added = { (n: Int) in RevisionedChange(revision: UInt64(n), change: .added(item(n))) }
        let size = ChangeHistory.estimatedBytes(of: added(1))
        #expect(size == 64 + item(1).jsonByteCount)
        #expect(ChangeHistory.estimatedBytes(of: change(1)) == 160)
        var history = ChangeHistory(capacity: 100, byteLimit: 3 * size, revision: 0)
        for n in 1...5 { history.append(added(n)) }
        #expect(history.count == 3 && history.keptBytes == 3 * size && history.base == 2)
        #expect(history.changes(after: 2) == [added(3), added(4), added(5)])
        #expect(history.changes(after: 1) == nil)
        // A small change makes room by dropping only as many old ones as needed.
        history.append(RevisionedChange(revision: 6, change: .removed(SequentialIDs.id(1))))
        #expect(history.count == 3 && history.base == 3)

        let list = try await ReadingList(
            store: MemoryListStore(), now: FixedClock().reader, newID: SequentialIDs().generator, historyBytes: 2 * size + 100)
        for _ in 1...3 { _ = try await list.apply(.add(title: title)) }
        await #expect(throws: ReadingListError.compacted(requested: 0, current: 3)) {
            try await list.watch(since: 0) { _, _ in }
        }
        #expect(try await list.watch(since: 1) { _, _ in } == 3)
    }

    /// Found by review: a kept change counted as 160 bytes and its title, so 10,000 updates each carrying a 64 KiB
    /// note held about 640 MB under a limit of 64 MiB.
    @Test("a kept change counts every member of its item: a 1 MiB history keeps 15 updates with a 64 KiB note, not 10,000")
    func everyMemberCounts() {
        let note = String(repeating: "n", count: 65_536)
        var history = ChangeHistory(capacity: 10_000, byteLimit: 1 << 20, revision: 0)
        for n in 1...10_000 {
            let item = Item(
                id: SequentialIDs.id(1), title: "x", isRead: false, addedAt: Date(timeIntervalSince1970: 0),
                revision: UInt64(n), author: "A", url: "https://example.org/", tags: ["t"], note: note)
            history.append(RevisionedChange(revision: UInt64(n), change: .updated(item)))
        }
        #expect(history.count == 15)
        #expect(history.keptBytes <= 1 << 20 && history.keptBytes > 15 * 65_536)
    }

    @Test("a history that has wrapped around its ring keeps the last changes in order, and grows to its capacity")
    func wrapAround() {
        var history = ChangeHistory(capacity: 20, revision: 0)
        // 16 slots first, then 20: the changes wrap round both before and after the ring grows.
        for revision: Revision in 1...13 { history.append(change(revision)) }
        for revision: Revision in 14...45 {
            history.append(change(revision))
            let kept = max(0, Int(revision) - 20)
            #expect(history.base == Revision(kept))
            #expect(history.changes(after: Revision(kept)) == (Revision(kept) + 1...revision).map(change))
            #expect(history.count == Int(revision) - kept && history.keptBytes == 160 * history.count)
        }
        #expect(history.changes(after: 40) == (41...45).map(change))
        #expect(history.changes(after: 24) == nil)
    }

    @Test("after wrapping round, a large change drops as many of the oldest as its bytes need, and one above the limit drops them all")
    func byteEvictionAfterWrap() {
        let added = { (n: Int, titleLength: Int) in
            RevisionedChange(revision: UInt64(n), change: .added(Item(
                id: SequentialIDs.id(UInt64(n)), title: String(repeating: "t", count: titleLength), isRead: false,
                addedAt: Date(timeIntervalSince1970: 0), revision: UInt64(n))))
        }
        // Removals cost 160 bytes each: 10 of them fill the limit exactly.
        var history = ChangeHistory(capacity: 16, byteLimit: 1600, revision: 0)
        for revision: Revision in 1...30 { history.append(change(revision)) }
        #expect(history.count == 10 && history.base == 20 && history.keptBytes == 1600)
        let big = added(31, 400)
        let size = ChangeHistory.estimatedBytes(of: big)
        history.append(big)
        let dropped = (size + 159) / 160
        #expect(history.count == 11 - dropped && history.base == Revision(20 + dropped))
        #expect(history.changes(after: Revision(20 + dropped)) == (Revision(21 + dropped)...30).map(change) + [big])
        #expect(history.keptBytes == 160 * (10 - dropped) + size)

        let huge = added(32, 2000)
        history.append(huge)
        #expect(history.count == 0 && history.keptBytes == 0 && history.base == 32)
        #expect(history.changes(after: 32) == [])
        #expect(history.changes(after: 31) == nil)
        history.append(change(33))
        #expect(history.changes(after: 32) == [change(33)] && history.keptBytes == 160)
    }

    @Test("a history answers as a plain array of its changes would, over runs of mixed sizes that wrap many times")
    func matchesPlainModel() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33)
        }
        for (capacity, byteLimit) in [(0, Int.max), (1, Int.max), (5, Int.max), (37, 4000), (100, 1500), (3, 0)] {
            var history = ChangeHistory(capacity: capacity, byteLimit: byteLimit, revision: 7)
            var model: [RevisionedChange] = []
            var base: Revision = 7
            for revision: Revision in 8...400 {
                let change = next() % 3 == 0
                    ? change(revision)
                    : RevisionedChange(revision: revision, change: .updated(Item(
                        id: SequentialIDs.id(1), title: String(repeating: "x", count: 1 + next() % 600), isRead: false,
                        addedAt: Date(timeIntervalSince1970: 0), revision: revision)))
                history.append(change)
                model.append(change)
                while model.count > capacity
                    || (model.map(ChangeHistory.estimatedBytes(of:)).reduce(0, +) > max(0, byteLimit) && !model.isEmpty) {
                    base = model.removeFirst().revision
                }
                #expect(history.base == base && history.count == model.count)
                #expect(history.keptBytes == model.map(ChangeHistory.estimatedBytes(of:)).reduce(0, +))
                let after = base + Revision(next() % (model.count + 1))
                #expect(history.changes(after: after) == Array(model.drop(while: { $0.revision <= after })))
            }
        }
    }

    @Test("watch hands over the published changes after since, and refuses compacted or future revisions")
    func watchBacklog() async throws {
        let list = try await ReadingList(
            store: MemoryListStore(), now: FixedClock().reader, newID: SequentialIDs().generator, historyLimit: 2)
        let a = try await list.apply(.add(title: "A"))
        let read = try await list.apply(.toggle(id: a.id))
        let removed = try await list.apply(.remove(id: a.id))
        let backlog = Recorder<([RevisionedChange], Revision)>()

        let revision = try await list.watch(since: 1) { backlog.append(($0, $1)) }

        #expect(revision == 3)
        #expect(backlog.all.map(\.0) == [[try #require(read.change), try #require(removed.change)]])
        #expect(backlog.all.map(\.1) == [3])
        await #expect(throws: ReadingListError.compacted(requested: 0, current: 3)) {
            try await list.watch(since: 0) { _, _ in }
        }
        await #expect(throws: ReadingListError.compacted(requested: 4, current: 3)) {
            try await list.watch(since: 4) { _, _ in }
        }
        #expect(try await list.watch(since: nil) { backlog.append(($0, $1)) } == 3)
        #expect(backlog.all.last?.0 == [])
    }
}
