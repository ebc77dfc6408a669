import Foundation
import Synchronization
import Testing
@testable import ShelfCore
import ShelfTestSupport

/// `FileListStore(roundEnd:)`: the commits of one round of the caller's event loop are handed to the store
/// together, where the hook says (in `shelfd`, at the end of the loop's round), and go into one write and one sync.
@Suite struct RoundHandOffTests {
    /// The hand-overs the hook was given and has not run yet.
    private final class HeldHandOffs: Sendable {
        private let handOffs = Mutex<[@Sendable () -> Void]>([])

        var count: Int { handOffs.withLock { $0.count } }

        func hold(_ handOff: @escaping @Sendable () -> Void) -> Bool {
            handOffs.withLock { $0.append(handOff) }
            return true
        }

        func runAll() {
            for handOff in handOffs.withLock({ held in defer { held.removeAll() }; return held }) { handOff() }
        }
    }

    @Test("three commits made while the hand-over is held go out in one round: one failed fsync fails all three the same way")
    func heldHandOffGroupsCommits() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let held = HeldHandOffs()
        let faults = FileFaults()
        let store = FileListStore(path: files.path, faults: faults, roundEnd: held.hold)
        _ = try await store.load()
        faults.arm(.fsync)

        let (stream, continuation) = AsyncStream.makeStream(of: Result<Void, StorageError>.self)
        for n in UInt64(1)...3 { store.enqueue(addCommit(n, base: n - 1)) { continuation.yield($0) } }
        // The first commit of the round gave the hook the round's hand-over; the others joined it.
        #expect(held.count == 1)
        held.runAll()

        var errors: [StorageError?] = []
        for await result in stream {
            errors.append(result.error)
            if errors.count == 3 { break }
        }
        // Rounds of one commit each would have failed the second and third on their base (the first was not
        // stored), not on the fsync.
        #expect(errors == [.injected("fsync"), .injected("fsync"), .injected("fsync")])

        // A new round: the next commit gives the hook a new hand-over, and is stored once it runs.
        let next = Task { await commit(store, addCommit(1, base: 0)) }
        try await waitUntil { held.count == 1 }
        held.runAll()
        try await next.value.get()
        #expect(files.journalText == Stored.added(1, revision: 1))
    }

    @Test("a hook that declines (returns false) has the commit handed over at once")
    func declinedHandOffRunsAtOnce() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let asked = Mutex(0)
        let store = FileListStore(path: files.path, roundEnd: { _ in
            asked.withLock { $0 += 1 }
            return false
        })
        _ = try await store.load()
        try await commit(store, addCommit(1, base: 0)).get()
        #expect(asked.withLock { $0 } == 1)
        #expect(files.journalText == Stored.added(1, revision: 1))
    }
}
