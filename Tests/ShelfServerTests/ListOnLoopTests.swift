import Foundation
import ShelfCore
import ShelfSockets
import ShelfTestSupport
import Synchronization
import Testing

/// A `ReadingList` on the event loop's serial executor, as `shelfd` runs it: code on the loop calls it in place,
/// even from inside the list's own publish or rollback (a subscriber, a `whenAnswered` receiver).
@Suite struct ListOnLoopTests {
    private static func listOnLoop(_ store: any ListStore) async throws -> ReadingList {
        try await ReadingList(
            store: store, executor: Reactor.shared.executor.serial, completionExecutor: Reactor.shared.executor)
    }

    @Test("an answer asked for from inside the publish that answers it reaches its receiver")
    func whenAnsweredFromPublish() async throws {
        let store = GatedListStore()
        let list = try await Self.listOnLoop(store)
        let a = await list.submit(.add(title: "A"))
        // A stale expect: refused without a write, but answered only after A, in the same publish.
        let b = await list.submit(.add(title: "B"), expect: 0)
        guard case .pending = a, case .pending = b else {
            Issue.record("expected both requests to wait for A's save: \(a), \(b)")
            return
        }
        let answers = Mutex<[Result<MutationResult, ReadingListError>]>([])
        _ = await list.subscribe { change in
            if change.revision == 1 { list.whenAnswered(b) { outcome in answers.withLock { $0.append(outcome) } } }
        }
        store.open()
        try await withDeadline(seconds: 5) { try await waitUntil { answers.withLock { !$0.isEmpty } } }
        #expect(answers.withLock { $0 } == [.failure(ReadingListError.conflict(current: 1))])
        #expect(await list.outcome(of: a).map(\.revision) == .success(1))
    }

    @Test("an answer asked for from inside a rollback's receiver is the rollback's, not an unknown ticket")
    func whenAnsweredFromRollback() async throws {
        let store = GatedListStore()
        let list = try await Self.listOnLoop(store)
        let a = await list.submit(.add(title: "A"))
        let b = await list.submit(.add(title: "B"))
        let answers = Mutex<[String: Result<MutationResult, ReadingListError>]>([:])
        // Registered on the loop, so in place, before the save fails.
        await Task(executorPreference: Reactor.shared.executor) {
            list.whenAnswered(a) { outcome in
                answers.withLock { $0["A"] = outcome }
                list.whenAnswered(b) { outcome in answers.withLock { $0["B"] = outcome } }
            }
        }.value
        store.inner.failWrites = true
        store.open()
        try await withDeadline(seconds: 5) { try await waitUntil { answers.withLock { $0.count == 2 } } }
        let failed = Result<MutationResult, ReadingListError>.failure(.storageFailed(.injected("memory store write")))
        #expect(answers.withLock { $0 } == ["A": failed, "B": failed])
        #expect(await list.revision == 0)
    }
}
