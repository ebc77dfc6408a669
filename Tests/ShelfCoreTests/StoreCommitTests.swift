@testable import ShelfCore
import Testing

/// A commit holds one change without an array; what it reports is the same however it was built.
struct StoreCommitTests {
    private static func removal(_ revision: Revision) -> RevisionedChange {
        RevisionedChange(revision: revision, change: .removed(SequentialIDs.id(revision)))
    }

    @Test func oneChangeGivenAloneOrInAnArrayMakesTheSameCommit() {
        let alone = StoreCommit(generation: 2, base: 6, change: Self.removal(7))
        let inArray = StoreCommit(generation: 2, base: 6, changes: [Self.removal(7)])
        #expect(alone == inArray)
        #expect(alone.changes == [Self.removal(7)])
        #expect(alone.resultingRevision == 7)
    }

    @Test func severalChangesAndNoneReportTheirRevisions() {
        let several = StoreCommit(generation: 1, base: 3, changes: [Self.removal(4), Self.removal(5), Self.removal(6)])
        #expect(several.changes.map(\.revision) == [4, 5, 6])
        #expect(several.resultingRevision == 6)
        let none = StoreCommit(generation: 1, base: 3, changes: [])
        #expect(none.changes.isEmpty)
        #expect(none.resultingRevision == 3)
        #expect(none != several)
    }
}
