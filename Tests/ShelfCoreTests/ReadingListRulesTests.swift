import Foundation
import ShelfCore
import Testing

/// No-op requests, identity, conditional writes and revisions, over `MemoryListStore`.
struct ReadingListRulesTests {
    let store = MemoryListStore()
    let ids = SequentialIDs()
    let clock = FixedClock()

    @Test("a new list is at revision 0 and each accepted change adds exactly 1")
    func revisionCounting() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        #expect(await list.revision == 0)

        let a = try await list.apply(.add(title: "A"))
        let b = try await list.apply(.add(title: "B"))
        let renamed = try await list.apply(.rename(id: a.id, title: "A2"))
        let read = try await list.apply(.setRead(id: b.id, isRead: true))
        let removed = try await list.apply(.remove(id: a.id))

        #expect([a, b, renamed, read, removed].map(\.revision) == [1, 2, 3, 4, 5])
        #expect(await list.revision == 5)
        #expect(store.stored.revision == 5)
        #expect(store.writeAttempts == 5)
    }

    @Test("submitAll answers each request as submit would, in order: a stale expect in the middle is a conflict")
    func submitAllInOrder() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let submissions = await list.submitAll([
            ReadingList.Request(.add(title: "A"), expect: nil),
            ReadingList.Request(.add(title: "B"), expect: 0),
            ReadingList.Request(.add(title: "C"), expect: 1),
            ReadingList.Request(.add(title: " "), expect: nil),
        ])
        var outcomes: [Result<MutationResult, ReadingListError>] = []
        for submission in submissions { outcomes.append(await list.outcome(of: submission)) }
        #expect(outcomes.count == 4)
        #expect((try? outcomes[0].get())?.item?.title == "A")
        #expect((try? outcomes[0].get())?.revision == 1)
        #expect(outcomes[1] == .failure(.conflict(current: 1)))
        #expect((try? outcomes[2].get())?.item?.title == "C")
        #expect((try? outcomes[2].get())?.revision == 2)
        #expect(outcomes[3] == .failure(.invalidTitle(.blank)))
        #expect(await list.revision == 2)
    }

    @Test("ids drawn ahead for a run of adds go to the accepted adds in order, refused ones take none, and the next add gets the next one")
    func idsDrawnAheadGoInOrder() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let submissions = await list.submitAll([
            ReadingList.Request(.add(title: "A"), expect: nil),
            ReadingList.Request(.add(title: " "), expect: nil),
            ReadingList.Request(.add(title: "B"), expect: 0),
            ReadingList.Request(.add(title: "C"), expect: nil),
        ])
        var outcomes: [Result<MutationResult, ReadingListError>] = []
        for submission in submissions { outcomes.append(await list.outcome(of: submission)) }
        let d = try await list.apply(.add(title: "D"))
        #expect(outcomes.map { (try? $0.get())?.item?.id } == [SequentialIDs.id(1), nil, nil, SequentialIDs.id(2)])
        #expect(d.id == SequentialIDs.id(3))
        #expect(await list.snapshot().items.items.map(\.title) == ["A", "C", "D"])
    }

    @Test("an item's revision is the list revision at which it last changed")
    func itemRevision() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let a = try await list.apply(.add(title: "A"))
        let b = try await list.apply(.add(title: "B"))
        _ = try await list.apply(.toggle(id: a.id))
        _ = try await list.apply(.add(title: "C"))

        let items = await list.snapshot().items
        #expect(items[a.id]?.revision == 3)
        #expect(items[b.id]?.revision == 2)
        #expect(items[SequentialIDs.id(3)]?.revision == 4)
        #expect(try await list.item(b.id).revision == 4)
    }

    @Test("addedAt comes from the injected clock, truncated to whole milliseconds")
    func addedAtFromClock() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let first = try await list.apply(.add(title: "A"))
        clock.now = Date(timeIntervalSince1970: 1_800_000_000.987_654)
        let second = try await list.apply(.add(title: "B"))

        #expect(first.item?.addedAt == Timestamp.parse(FixedClock.startText))
        #expect(second.item?.addedAt == Timestamp.parse("2027-01-15T08:00:00.987Z"))
        #expect(second.item.map { Timestamp.format($0.addedAt) } == "2027-01-15T08:00:00.987Z")
    }

    @Test("two items may share a title and stay distinct by id")
    func duplicateTitlesAllowed() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let first = try await list.apply(.add(title: "Dup"))
        let second = try await list.apply(.add(title: " Dup "))

        #expect(first.id == SequentialIDs.id(1))
        #expect(second.id == SequentialIDs.id(2))
        let titles = await list.snapshot().items.items.map(\.title)
        #expect(titles == ["Dup", "Dup"])
    }

    @Test("marking an item with the state it already has writes nothing and keeps the revision")
    func markSameStateIsNoOp() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "A"))

        let unread = try await list.apply(.setRead(id: added.id, isRead: false))
        #expect(unread.change == nil)
        #expect(unread.revision == 1)
        #expect(unread.item == added.item)
        #expect(store.writeAttempts == 1)

        let read = try await list.apply(.setRead(id: added.id, isRead: true))
        #expect(read.revision == 2)
        let again = try await list.apply(.setRead(id: added.id, isRead: true))
        #expect(again.change == nil)
        #expect(again.revision == 2)
        #expect(again.item?.revision == 2)
        #expect(store.writeAttempts == 2)
        #expect(await list.revision == 2)
    }

    @Test("renaming to the same title (after trimming) writes nothing")
    func renameSameTitleIsNoOp() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "Protocols"))

        let same = try await list.apply(.rename(id: added.id, title: "\tProtocols \n"))

        #expect(same.change == nil)
        #expect(same.revision == 1)
        #expect(store.writeAttempts == 1)
        #expect(await list.revision == 1)
    }

    /// Found by a hostile-input run: `==` on titles is canonical equivalence, so the new bytes were not stored.
    @Test("renaming to a canonically equivalent title in other code points (NFD to NFC) is a change, stored as sent")
    func renameToAnotherNormalisation() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "Cafe\u{301}"))

        let renamed = try await list.apply(.rename(id: added.id, title: "Caf\u{E9}"))

        #expect(renamed.revision == 2)
        #expect(renamed.change != nil)
        #expect(store.stored.items[added.id].map { Array($0.title.utf8) } == Array("Caf\u{E9}".utf8))
    }

    @Test("renaming trims the new title and records the revision")
    func renameApplies() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "Protocols"))

        let renamed = try await list.apply(.rename(id: added.id, title: "  Generics\n"))

        #expect(renamed.item?.title == "Generics")
        #expect(renamed.item?.revision == 2)
        #expect(renamed.item?.addedAt == added.item?.addedAt)
        #expect(store.stored.items[added.id]?.title == "Generics")
    }

    @Test("renaming to an invalid title is refused and writes nothing")
    func renameInvalid() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "Protocols"))

        #expect((await outcome(list, .rename(id: added.id, title: " "))).error == .invalidTitle(.blank))
        #expect(
            (await outcome(list, .rename(id: added.id, title: "a\u{1B}b"))).error
                == .invalidTitle(.controlCharacter(scalar: 0x1B)))
        #expect(store.writeAttempts == 1)
        #expect(await list.snapshot().items[added.id]?.title == "Protocols")
    }

    @Test("every mutation of an unknown id answers notFound and writes nothing", arguments: [
        Mutation.toggle(id: SequentialIDs.id(99)),
        .setRead(id: SequentialIDs.id(99), isRead: true),
        .rename(id: SequentialIDs.id(99), title: "New"),
        .remove(id: SequentialIDs.id(99)),
    ])
    func unknownID(mutation: Mutation) async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        _ = try await list.apply(.add(title: "A"))

        let error = try #require((await outcome(list, mutation)).error)

        #expect(error == .notFound(SequentialIDs.id(99)))
        #expect(store.writeAttempts == 1)
        #expect(await list.revision == 1)
    }

    @Test("a mutation whose expect differs from the revision answers conflict with the current revision", arguments: [
        Mutation.add(title: "B"),
        .toggle(id: SequentialIDs.id(1)),
        .setRead(id: SequentialIDs.id(1), isRead: true),
        .rename(id: SequentialIDs.id(1), title: "New"),
        .remove(id: SequentialIDs.id(1)),
    ])
    func expectMismatch(mutation: Mutation) async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        _ = try await list.apply(.add(title: "A"))
        let before = await list.snapshot()

        let error = try #require((await outcome(list, mutation, expect: 0)).error)

        #expect(error == .conflict(current: 1))
        #expect(error.description == "The list changed (now at revision 1); reload and try again")
        #expect(store.writeAttempts == 1)
        #expect(await list.snapshot() == before)
        #expect(ids.issued == 1)
    }

    @Test("a mutation whose expect matches the revision applies")
    func expectMatch() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "A"), expect: 0)
        let toggled = try await list.apply(.toggle(id: added.id), expect: 1)
        let removed = try await list.apply(.remove(id: added.id), expect: 2)

        #expect(added.revision == 1)
        #expect(toggled.revision == 2)
        #expect(removed.revision == 3)
        #expect(store.writeAttempts == 3)
        #expect(await list.snapshot().items.count == 0)
    }

    @Test("a refused title does not use up an id")
    func refusedAddKeepsIDs() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        _ = await outcome(list, .add(title: ""))
        _ = await outcome(list, .add(title: String(repeating: "x", count: 1_001)))

        let added = try await list.apply(.add(title: "A"))

        #expect(added.id == SequentialIDs.id(1))
    }

    @Test("a list loads what its store already holds")
    func loadsExisting() async throws {
        let existing = try snapshot(revision: 7, [item(5, "Kept", isRead: true, revision: 6)])
        let store = MemoryListStore(initial: existing)
        let list = try await makeList(store: store, ids: ids, clock: clock)

        #expect(await list.snapshot() == existing)
        let added = try await list.apply(.add(title: "Next"))
        #expect(added.revision == 8)
        #expect(store.stored.revision == 8)
    }

    @Test("subscribers see every accepted change in revision order, each only after the store holds it")
    func subscribersSeeSavedChanges() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let seen = Recorder<(RevisionedChange, Revision)>()
        let store = self.store
        _ = await list.subscribe { change in seen.append((change, store.stored.revision)) }

        let a = try await list.apply(.add(title: "A"))
        _ = try await list.apply(.setRead(id: a.id, isRead: false))
        let toggled = try await list.apply(.toggle(id: a.id))
        _ = try await list.apply(.remove(id: a.id))

        let changes = seen.all.map(\.0)
        #expect(changes.map(\.revision) == [1, 2, 3])
        #expect(changes.map(\.change) == [.added(try #require(a.item)), .updated(try #require(toggled.item)), .removed(a.id)])
        for (change, storedRevision) in seen.all {
            #expect(storedRevision >= change.revision)
        }
    }
}
