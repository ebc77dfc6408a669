import Foundation
import ShelfCore
import Synchronization
import Testing

/// `EphemeralListStore` (`shelfd --store memory`) keeps no copy of the list but still refuses commits out of order.
struct EphemeralListStoreTests {
    @Test("a list on it takes adds and changes; the revision advances; load gives an empty list")
    func listWorks() async throws {
        let store = EphemeralListStore()
        let list = try await ReadingList(store: store)
        let first = try await list.apply(.add(title: "One"))
        let second = try await list.apply(.add(title: "Two"))
        let item = try #require(first.item)
        _ = try await list.apply(.setRead(id: item.id, isRead: true))
        #expect(await list.revision == 3)
        #expect(await list.snapshot().items.items.map(\.title) == ["One", "Two"])
        #expect(second.revision == 2)
        #expect(try await store.load() == ListSnapshot())
    }

    @Test("a commit that does not follow the last one is refused, and the next one that does is accepted")
    func outOfOrderCommitIsRefused() throws {
        let store = EphemeralListStore()
        let item = Item(id: UUID(), title: "A", isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 1)
        let change = RevisionedChange(revision: 1, change: .added(item))
        let results = ResultLog()
        store.enqueue(StoreCommit(generation: 0, base: 5, changes: [change])) { results.append($0) }
        store.enqueue(StoreCommit(generation: 0, base: 0, changes: [change])) { results.append($0) }
        store.enqueue(StoreCommit(generation: 0, base: 0, changes: [change])) { results.append($0) }
        #expect(results.all == [
            .failure(.baseMismatch(expected: 5, actual: 0)), .success(()), .failure(.baseMismatch(expected: 0, actual: 1)),
        ].map(Outcome.init))
    }
}

/// A comparable stand-in for a store completion's result.
private enum Outcome: Equatable {
    case success
    case failure(StorageError)

    init(_ result: Result<Void, StorageError>) {
        switch result {
        case .success: self = .success
        case .failure(let error): self = .failure(error)
        }
    }
}

private final class ResultLog: Sendable {
    private let results = Mutex<[Outcome]>([])

    func append(_ result: Result<Void, StorageError>) {
        results.withLock { $0.append(Outcome(result)) }
    }

    var all: [Outcome] { results.withLock { $0 } }
}
