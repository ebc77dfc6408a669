import Foundation
import ShelfSockets
import Testing

@testable import ShelfCore
@testable import ShelfdCLI

/// The file store as `shelfd` makes it (`StoreChoice.makeStore()`): the commits of one round of the event loop are
/// handed over together, at the round's end, and share one write and one fdatasync.
@Suite(.timeLimit(.minutes(1)))
struct StoreChoiceTests {
    /// A store in a new temporary directory, with the hook `shelfd` gives it, loaded.
    private static func loadedStore(faults: FileFaults) async throws -> (FileListStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-store-choice-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = FileListStore(
            path: directory.appendingPathComponent("list.json").path, faults: faults,
            roundEnd: StoreChoice.eventLoopRoundEnd)
        _ = try await store.load()
        return (store, directory)
    }

    /// The commit adding a book titled `n` on top of revision `base`.
    private static func add(_ n: UInt64, base: Revision) -> StoreCommit {
        let item = Item(
            id: UUID(), title: "Book \(n)", isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: base + 1)
        return StoreCommit(generation: 0, base: base, change: RevisionedChange(revision: base + 1, change: .added(item)))
    }

    /// Enqueues `commits` on `store` from one job on the event loop, and returns their results and how many were
    /// still waiting for the round's end when the job finished enqueuing.
    private static func enqueueInOneRound(
        _ commits: [StoreCommit], on store: FileListStore
    ) async -> (errors: [StorageError?], waiting: Int) {
        let (results, continuation) = AsyncStream.makeStream(of: (Int, StorageError?).self)
        let waiting = Task(executorPreference: Reactor.shared.executor) {
            for (index, commit) in commits.enumerated() {
                store.enqueue(commit) { result in
                    if case .failure(let error) = result { continuation.yield((index, error)) } else { continuation.yield((index, nil)) }
                }
            }
            return store.commitsWaitingForRoundEnd
        }
        var errors = [StorageError?](repeating: nil, count: commits.count)
        var received = 0
        for await (index, error) in results {
            errors[index] = error
            received += 1
            if received == commits.count { break }
        }
        return (errors, await waiting.value)
    }

    @Test("three commits made in one round of the event loop share one fsync: one failed fsync fails all three the same way")
    func oneRoundOneSync() async throws {
        let faults = FileFaults()
        let (store, directory) = try await Self.loadedStore(faults: faults)
        defer { try? FileManager.default.removeItem(at: directory) }
        faults.arm(.fsync)

        let round = await Self.enqueueInOneRound([Self.add(1, base: 0), Self.add(2, base: 1), Self.add(3, base: 2)], on: store)

        #expect(round.waiting == 3)
        // Handed over one by one, the first could go alone and fail on the fsync, and the second and third on their
        // base instead.
        #expect(round.errors == [.injected("fsync"), .injected("fsync"), .injected("fsync")])
        #expect(await Self.enqueueInOneRound([Self.add(1, base: 0)], on: store).errors == [nil])
    }

    @Test("a commit made off the event loop is handed over at once and stored")
    func offTheLoop() async throws {
        let (store, directory) = try await Self.loadedStore(faults: FileFaults())
        defer { try? FileManager.default.removeItem(at: directory) }

        let result = await withCheckedContinuation { continuation in
            store.enqueue(Self.add(1, base: 0)) { continuation.resume(returning: $0) }
        }

        #expect(throws: Never.self) { try result.get() }
        #expect(try await store.load().revision == 1)
    }
}
