import Testing
@testable import ShelfCore

/// The pending-request queue: look-up by ticket with gaps, saved state, front removal and compaction.
@Suite struct PendingRequestsTests {
    private static func entry(_ ticket: UInt64, saved: Bool = false) -> ReadingList.Entry {
        ReadingList.Entry(ticket: ticket, outcome: .failure(.conflict(current: 0)), saved: saved, receiver: nil)
    }

    /// The tickets of the first `count` entries, removed.
    private static func takeTickets(_ count: Int, from pending: inout PendingRequests) -> [UInt64] {
        var taken: [ReadingList.Entry] = []
        pending.removeFirst(count, into: &taken)
        return taken.map(\.ticket)
    }

    @Test("tickets with gaps are found by position; missing ones are not")
    func lookUp() {
        var pending = PendingRequests()
        for ticket in [UInt64(2), 3, 7, 8, 20] { pending.append(Self.entry(ticket)) }
        #expect([UInt64(2), 3, 7, 8, 20].map { pending.position(of: $0) } == [0, 1, 2, 3, 4])
        #expect([UInt64(0), 1, 4, 9, 21].allSatisfy { pending.position(of: $0) == nil })
        _ = Self.takeTickets(2, from: &pending)
        #expect(pending.position(of: 2) == nil)
        #expect(pending.position(of: 7) == 2)
        #expect(pending.count == 3)
    }

    @Test("allSaved counts unsaved entries through marking and removal")
    func savedCount() {
        var pending = PendingRequests()
        #expect(pending.allSaved)
        pending.append(Self.entry(1))
        pending.append(Self.entry(2, saved: true))
        pending.append(Self.entry(3))
        #expect(!pending.allSaved)
        #expect(pending.savedPrefix().isEmpty)
        pending.markSaved(at: 0)
        pending.markSaved(at: 0)
        #expect(pending.savedPrefix() == 0..<2)
        #expect(Self.takeTickets(2, from: &pending) == [1, 2])
        #expect(!pending.allSaved)
        #expect(Self.takeTickets(pending.count, from: &pending) == [3])
        #expect(pending.allSaved)
        #expect(pending.isEmpty)
    }

    @Test("rollBack keeps the saved front's outcomes, marks it published, and fails every entry behind it, counted as saved")
    func rollBack() {
        var pending = PendingRequests()
        pending.append(Self.entry(1))
        pending.append(Self.entry(2, saved: true))
        pending.append(Self.entry(3))
        pending.append(Self.entry(4, saved: true))
        pending.markSaved(at: 0)
        let failure: ReadingList.Outcome = .failure(.storageFailed(.injected("disk full")))

        pending.rollBack(keeping: pending.savedPrefix(), failing: failure)

        #expect(pending.allSaved)
        #expect(pending.savedPrefix() == 0..<4)
        #expect((0..<4).allSatisfy { pending[$0].published })
        #expect((0..<2).map { pending[$0].outcome } == [.failure(.conflict(current: 0)), .failure(.conflict(current: 0))])
        #expect((2..<4).map { pending[$0].outcome } == [failure, failure])
    }

    @Test("100,000 entries taken from the front one by one come out in order, and look-ups stay right across compactions")
    func manyFromTheFront() {
        var pending = PendingRequests()
        let count: UInt64 = 100_000
        for ticket in 0..<count { pending.append(Self.entry(ticket * 2)) }
        var taken: [UInt64] = []
        while !pending.isEmpty {
            let front = pending.savedPrefix().lowerBound
            #expect(pending.position(of: UInt64(taken.count) * 2) == front)
            pending.markSaved(at: front)
            taken += Self.takeTickets(pending.savedPrefix().count, from: &pending)
        }
        #expect(taken == (0..<count).map { $0 * 2 })
        #expect(pending.allSaved)
    }
}
