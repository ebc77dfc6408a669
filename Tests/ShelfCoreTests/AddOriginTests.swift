import Foundation
import ShelfCore
import Testing

/// `add` keeping an item's id, dates and read state from another list (protocol/PROTOCOL.md §5, "Adding an item as
/// it was"), over `MemoryListStore`.
struct AddOriginTests {
    let store = MemoryListStore()
    let ids = SequentialIDs()
    let clock = FixedClock()
    let kept = UUID(uuidString: "7d3c9a10-1111-4222-8333-444455556666") ?? UUID()
    let addedAt = Timestamp.parse("2020-05-06T07:08:09.010Z") ?? Date()
    let readAt = Timestamp.parse("2021-01-02T03:04:05.678Z") ?? Date()

    @Test("an add with an origin keeps its id, addedAt, isRead and readAt, and the store holds them")
    func keepsEverything() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let origin = ItemDetails.Origin(id: kept, addedAt: addedAt, isRead: true, readAt: readAt)
        let result = try await list.apply(.add(title: "Dune", details: ItemDetails(author: "Frank Herbert", origin: origin)))
        let item = try #require(result.item)
        #expect(item.id == kept)
        #expect(item.addedAt == addedAt)
        #expect(item.isRead)
        #expect(item.readAt == readAt)
        #expect(item.author == "Frank Herbert")
        #expect(store.stored.items[kept] == item)
        #expect(ids.issued == 0)
    }

    @Test("an id an item has is refused as id_taken and nothing is written; once it is removed it is free again")
    func takenID() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        _ = try await list.apply(.add(title: "A", details: ItemDetails(origin: .init(id: kept))))
        let again = await outcome(list, .add(title: "B", details: ItemDetails(origin: .init(id: kept))))
        #expect(again == .failure(.idTaken(kept)))
        #expect(await list.revision == 1)
        _ = try await list.apply(.remove(id: kept))
        let back = try await list.apply(.add(title: "C", details: ItemDetails(origin: .init(id: kept))))
        #expect(back.item?.id == kept)
        #expect(back.revision == 3)
    }

    @Test("a drawn id that an item already has is skipped, so a sequential generator never duplicates a kept id")
    func drawnIDSkipsKeptOne() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let taken = SequentialIDs.id(1)
        _ = try await list.apply(.add(title: "Kept", details: ItemDetails(origin: .init(id: taken))))
        let drawn = try await list.apply(.add(title: "Drawn"))
        #expect(drawn.item?.id == SequentialIDs.id(2))
    }

    @Test("isRead without readAt is read now; readAt alone means read; neither is unread at the clock's time")
    func readStates() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let now = try await list.apply(.add(title: "A", details: ItemDetails(origin: .init(isRead: true))))
        #expect(now.item?.readAt.map(Timestamp.format) == FixedClock.startText)
        let implied = try await list.apply(.add(title: "B", details: ItemDetails(origin: .init(readAt: readAt))))
        #expect(implied.item?.isRead == true)
        #expect(implied.item?.readAt == readAt)
        let plain = try await list.apply(.add(title: "C", details: ItemDetails(origin: .init(addedAt: addedAt))))
        #expect(plain.item?.isRead == false)
        #expect(plain.item?.readAt == nil)
        #expect(plain.item?.addedAt == addedAt)
    }
}
