import Foundation
import ShelfCore

/// Builds a `ReadingList` over `store` with injected ids and clock.
func makeList(
    store: any ListStore, ids: SequentialIDs = SequentialIDs(), clock: FixedClock = FixedClock()
) async throws -> ReadingList {
    try await ReadingList(store: store, now: clock.reader, newID: ids.generator)
}

/// `apply` as a value, so tests can compare successes and failures alike.
func outcome(
    _ list: ReadingList, _ mutation: Mutation, expect: Revision? = nil
) async -> Result<MutationResult, ReadingListError> {
    do {
        return .success(try await list.apply(mutation, expect: expect))
    } catch {
        return .failure(error)
    }
}

/// Hands `commit` to `store` and waits for its completion.
func commit(_ store: some ListStore, _ commit: StoreCommit) async -> Result<Void, StorageError> {
    await withCheckedContinuation { continuation in
        store.enqueue(commit) { continuation.resume(returning: $0) }
    }
}

/// Hands every commit to `store` without waiting in between, then waits for all completions (in enqueue order).
func commitAll(_ store: some ListStore, _ commits: [StoreCommit]) async -> [Result<Void, StorageError>] {
    let (stream, continuation) = AsyncStream.makeStream(of: (Int, Result<Void, StorageError>).self)
    for (index, commit) in commits.enumerated() {
        store.enqueue(commit) { continuation.yield((index, $0)) }
    }
    var results = [Result<Void, StorageError>?](repeating: nil, count: commits.count)
    var received = 0
    for await (index, result) in stream {
        results[index] = result
        received += 1
        if received == commits.count { break }
    }
    return results.map { $0 ?? .failure(.injected("no completion")) }
}

/// `store.load()` as a value.
func loadResult(_ store: some ListStore) async -> Result<ListSnapshot, StorageError> {
    do {
        return .success(try await store.load())
    } catch {
        return .failure(error)
    }
}

/// An item for building snapshots by hand.
func item(_ n: UInt64, _ title: String, isRead: Bool = false, revision: Revision, at date: Date = FixedClock.start)
    -> Item
{
    Item(id: SequentialIDs.id(n), title: title, isRead: isRead, addedAt: Timestamp.truncated(date), revision: revision)
}

/// A snapshot holding `items` in order.
func snapshot(revision: Revision, _ items: [Item]) throws -> ListSnapshot {
    ListSnapshot(revision: revision, items: try ItemCollection.make(items).get())
}

extension Result {
    /// The error, or nil on success.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
