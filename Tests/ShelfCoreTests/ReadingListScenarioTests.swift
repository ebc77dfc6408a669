import Foundation
import ShelfCore
import Testing

/// The original reading-list scenarios, one test each, over `MemoryListStore`.
struct ReadingListScenarioTests {
    let store = MemoryListStore()
    let ids = SequentialIDs()
    let clock = FixedClock()

    @Test("adding a padded title stores the trimmed item with the injected id after exactly one write")
    func addTrimsAndWritesOnce() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)

        let result = try await list.apply(.add(title: "  Protocols  "))

        let expected = Item(
            id: SequentialIDs.id(1), title: "Protocols", isRead: false,
            addedAt: try #require(Timestamp.parse(FixedClock.startText)), revision: 1)
        #expect(result.item == expected)
        #expect(result.id == SequentialIDs.id(1))
        #expect(result.revision == 1)
        #expect(result.change == RevisionedChange(revision: 1, change: .added(expected)))
        #expect(store.writeAttempts == 1)
        #expect(await list.snapshot() == (try snapshot(revision: 1, [expected])))
        #expect(store.stored == (try snapshot(revision: 1, [expected])))
    }

    @Test("a blank title is refused with \"Enter a title\" and nothing is written")
    func blankTitleIsRefused() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)

        let error = try #require((await outcome(list, .add(title: "   \n"))).error)

        #expect(error == .invalidTitle(.blank))
        #expect(error.description == "Enter a title")
        #expect(store.writeAttempts == 0)
        #expect(await list.snapshot() == ListSnapshot())
        #expect(ids.issued == 0)
    }

    @Test("toggling an unread item marks it read and bumps the revision")
    func toggleMarksRead() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "Protocols"))

        let toggled = try await list.apply(.toggle(id: added.id))

        #expect(toggled.revision == 2)
        #expect(toggled.item?.isRead == true)
        #expect(toggled.item?.revision == 2)
        #expect(toggled.item?.title == "Protocols")
        #expect(try await list.item(added.id).item.isRead == true)
        #expect(await list.revision == 2)
        #expect(store.stored.items[added.id]?.isRead == true)
        #expect(store.writeAttempts == 2)
    }

    @Test("a failed save answers storageFailed and leaves the list, the store and the revision as they were")
    func failedSaveChangesNothing() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let added = try await list.apply(.add(title: "Protocols"))
        _ = try await list.apply(.toggle(id: added.id))
        let before = await list.snapshot()
        let storedBefore = store.stored

        store.failWrites = true
        let error = try #require((await outcome(list, .add(title: "Generics"))).error)

        #expect(error == .storageFailed(.injected("memory store write")))
        #expect(error.description == "Could not save that change")
        #expect(await list.snapshot() == before)
        #expect(await list.revision == 2)
        #expect(store.stored == storedBefore)
        #expect(store.stored.revision == 2)
        #expect(store.writeAttempts == 3)
    }

    @Test("after a failed save the next add works and gets the next injected id")
    func recoveryAfterFailedSave() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        _ = try await list.apply(.add(title: "Protocols"))
        store.failWrites = true
        #expect((await outcome(list, .add(title: "Generics"))).error != nil)

        store.failWrites = false
        let result = try await list.apply(.add(title: "Concurrency"))

        // The failed add drew id 2 from the generator; ids are never handed out twice, so this one is id 3.
        #expect(result.id == SequentialIDs.id(3))
        #expect(result.revision == 2)
        #expect(await list.snapshot().items.items.map(\.title) == ["Protocols", "Concurrency"])
        #expect(await list.snapshot().items.items.map(\.id) == [SequentialIDs.id(1), SequentialIDs.id(3)])
        #expect(store.stored == (await list.snapshot()))
    }

    @Test("deleting one of two items with the same title removes only that item")
    func deleteByIdentity() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let first = try await list.apply(.add(title: "Same"))
        let second = try await list.apply(.add(title: "Same"))

        let removed = try await list.apply(.remove(id: first.id))

        #expect(removed.revision == 3)
        #expect(removed.item == nil)
        #expect(removed.change == RevisionedChange(revision: 3, change: .removed(first.id)))
        let items = await list.snapshot().items.items
        #expect(items == [second.item])
        #expect(store.stored.items.items == [second.item])
    }

    @Test("a failed delete keeps both items")
    func failedDeleteKeepsBoth() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let first = try await list.apply(.add(title: "Same"))
        let second = try await list.apply(.add(title: "Same"))

        store.failWrites = true
        let error = try #require((await outcome(list, .remove(id: first.id))).error)

        #expect(error == .storageFailed(.injected("memory store write")))
        #expect(await list.snapshot().items.items == [first.item, second.item])
        #expect(await list.revision == 2)
        #expect(store.stored.items.items == [first.item, second.item])
    }

    @Test("deleting an item twice answers notFound the second time and writes nothing")
    func repeatedDeleteIsNotFound() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let first = try await list.apply(.add(title: "Same"))
        _ = try await list.apply(.add(title: "Same"))
        _ = try await list.apply(.remove(id: first.id))
        let writes = store.writeAttempts

        let error = try #require((await outcome(list, .remove(id: first.id))).error)

        #expect(error == .notFound(first.id))
        #expect(error.description == "This item is no longer available")
        #expect(store.writeAttempts == writes)
        #expect(await list.revision == 3)
    }
}
