import Foundation
import ShelfCore
import Testing
import ShelfTestSupport

/// The commit pipeline with saves completed by hand: several saves in flight, save before publish, in-order
/// answers, rollback and generations (shared/design.md, invariants 1, 2 and 4).
@Suite(.timeLimit(.minutes(1)))
struct ReadingListPipelineTests {
    let store = ManualStore()
    let ids = SequentialIDs()
    let clock = FixedClock()

    /// Starts `mutation` in its own task and waits until its commit reached the store.
    private func start(
        _ list: ReadingList, _ mutation: Mutation,
        requests: inout AsyncStream<ManualStore.Pending>.Iterator
    ) async throws -> (Task<Result<MutationResult, ReadingListError>, Never>, ManualStore.Pending) {
        let task = Task { await outcome(list, mutation) }
        let pending = try #require(await requests.next())
        return (task, pending)
    }

    @Test("two adds are both handed to the store before either is saved, each on top of the one before")
    func twoAddsInFlight() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        var requests = store.enqueued.makeAsyncIterator()

        let (firstTask, first) = try await start(list, .add(title: "One"), requests: &requests)
        let (secondTask, second) = try await start(list, .add(title: "Two"), requests: &requests)

        #expect(first.commit.generation == 0)
        #expect(first.commit.base == 0)
        #expect(first.commit.changes.map(\.revision) == [1])
        #expect(first.commit.changes.map(\.change.itemID) == [SequentialIDs.id(1)])
        #expect(second.commit.generation == 0)
        #expect(second.commit.base == 1)
        #expect(second.commit.changes.map(\.revision) == [2])
        #expect(second.commit.changes.map(\.change.itemID) == [SequentialIDs.id(2)])
        // Readers never see an unsaved change.
        #expect(await list.snapshot() == ListSnapshot())
        await #expect(throws: ReadingListError.notFound(SequentialIDs.id(1))) { try await list.item(SequentialIDs.id(1)) }

        first.succeed()
        second.succeed()
        #expect((try await value(of: firstTask).get()).revision == 1)
        #expect((try await value(of: secondTask).get()).revision == 2)
        #expect(await list.snapshot().items.items.map(\.title) == ["One", "Two"])
    }

    @Test("a later save that completes first is not published ahead of the earlier one; both publish in order")
    func saveBeforePublishInOrder() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let published = Recorder<Revision>()
        _ = await list.subscribe { published.append($0.revision) }
        var requests = store.enqueued.makeAsyncIterator()
        let (firstTask, first) = try await start(list, .add(title: "One"), requests: &requests)
        let (secondTask, second) = try await start(list, .add(title: "Two"), requests: &requests)

        second.succeed()
        first.succeed()

        let firstResult = try await value(of: firstTask).get()
        let secondResult = try await value(of: secondTask).get()
        #expect(firstResult.revision == 1)
        #expect(secondResult.revision == 2)
        // Published one at a time, in revision order: the second never ahead of the first.
        #expect(published.all == [1, 2])
        #expect(firstResult.item?.title == "One")
        #expect(secondResult.item?.title == "Two")
        #expect(await list.revision == 2)
    }

    @Test("a failed first save fails both requests, and a late success of the second (stale generation) is dropped")
    func rollbackAndStaleGeneration() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let published = Recorder<RevisionedChange>()
        _ = await list.subscribe { published.append($0) }
        var requests = store.enqueued.makeAsyncIterator()
        let (firstTask, first) = try await start(list, .add(title: "One"), requests: &requests)
        let (secondTask, second) = try await start(list, .add(title: "Two"), requests: &requests)

        first.fail(.injected("disk full"))

        #expect((try await value(of: firstTask)).error == .storageFailed(.injected("disk full")))
        #expect((try await value(of: secondTask)).error == .storageFailed(.injected("disk full")))
        #expect(await list.snapshot() == ListSnapshot())
        #expect(await list.revision == 0)

        // The second save now reports success, for generation 0: stale, so dropped and never published.
        #expect(second.commit.generation == 0)
        second.succeed()

        let (thirdTask, third) = try await start(list, .add(title: "Three"), requests: &requests)
        #expect(third.commit.generation == 1)
        #expect(third.commit.base == 0)
        #expect(third.commit.changes.map(\.revision) == [1])
        third.succeed()
        let result = try await value(of: thirdTask).get()

        // Old revision (0) + 1: the failed changes did not consume a revision.
        #expect(result.revision == 1)
        #expect(result.id == SequentialIDs.id(3))
        #expect(await list.snapshot().items.items.map(\.title) == ["Three"])
        #expect(await list.revision == 1)
        // Completions are handled in order, so the stale success was handled before the third's: had it been
        // published, it would show here.
        #expect(published.all.map(\.revision) == [1])
        #expect(published.all.map(\.change.itemID) == [SequentialIDs.id(3)])
        #expect(store.enqueueCount == 3)
    }

    @Test("when the second save succeeds and then the first fails, nothing is published and both fail")
    func laterSuccessThenEarlierFailure() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        let published = Recorder<RevisionedChange>()
        _ = await list.subscribe { published.append($0) }
        var requests = store.enqueued.makeAsyncIterator()
        let (firstTask, first) = try await start(list, .add(title: "One"), requests: &requests)
        let (secondTask, second) = try await start(list, .add(title: "Two"), requests: &requests)

        second.succeed()
        first.fail(.injected("disk full"))

        #expect((try await value(of: secondTask)).error == .storageFailed(.injected("disk full")))
        #expect((try await value(of: firstTask)).error == .storageFailed(.injected("disk full")))
        #expect(published.all.isEmpty)
        #expect(await list.snapshot() == ListSnapshot())
        #expect(await list.revision == 0)
    }

    @Test("a request that writes nothing, submitted while a save is in flight, is answered only after that save")
    func noOpWaitsBehindSave() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        var requests = store.enqueued.makeAsyncIterator()
        let (addTask, add) = try await start(list, .add(title: "One"), requests: &requests)

        let noOp = await list.submit(.setRead(id: SequentialIDs.id(1), isRead: false))
        let unknown = await list.submit(.remove(id: SequentialIDs.id(42)))
        guard case .pending(let noOpTicket) = noOp, case .pending(let unknownTicket) = unknown else {
            Issue.record("expected both requests to wait behind the save in flight, got \(noOp) and \(unknown)")
            return
        }
        add.succeed()

        #expect((try await value(of: addTask).get()).revision == 1)
        let noOpResult = try await value(of: Task { await list.answer(noOpTicket) }).get()
        #expect(noOpResult.change == nil)
        #expect(noOpResult.revision == 1)
        #expect((try await value(of: Task { await list.answer(unknownTicket) })).error == .notFound(SequentialIDs.id(42)))
        #expect(store.enqueueCount == 1)
    }

    @Test("a request that writes nothing, waiting behind a save that fails, answers storageFailed")
    func noOpBehindFailedSave() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        var requests = store.enqueued.makeAsyncIterator()
        let (addTask, add) = try await start(list, .add(title: "One"), requests: &requests)
        let noOp = await list.submit(.setRead(id: SequentialIDs.id(1), isRead: false))
        guard case .pending(let ticket) = noOp else {
            Issue.record("expected the request to wait behind the save in flight, got \(noOp)")
            return
        }

        add.fail()

        #expect((try await value(of: addTask)).error == .storageFailed(.injected("manual store write")))
        #expect((try await value(of: Task { await list.answer(ticket) })).error == .storageFailed(.injected("manual store write")))
        #expect(await list.snapshot() == ListSnapshot())
    }

    @Test("after a failed save, the next request builds on the accepted list, in the next generation")
    func failureThenMoreInFlight() async throws {
        let existing = try snapshot(revision: 4, [item(7, "Kept", revision: 4)])
        let store = ManualStore(initial: existing)
        let list = try await makeList(store: store, ids: ids, clock: clock)
        var requests = store.enqueued.makeAsyncIterator()

        let (toggleTask, toggle) = try await start(list, .toggle(id: SequentialIDs.id(7)), requests: &requests)
        #expect(toggle.commit.base == 4)
        toggle.fail()
        #expect((try await value(of: toggleTask)).error == .storageFailed(.injected("manual store write")))
        #expect(await list.snapshot() == existing)

        let (againTask, again) = try await start(list, .toggle(id: SequentialIDs.id(7)), requests: &requests)
        #expect(again.commit.generation == 1)
        #expect(again.commit.base == 4)
        #expect(again.commit.changes.map(\.revision) == [5])
        again.succeed()
        let result = try await value(of: againTask).get()
        #expect(result.revision == 5)
        #expect(result.item?.isRead == true)
        #expect(await list.snapshot().items[SequentialIDs.id(7)]?.isRead == true)
    }

    /// The attack that found it: many connections pipelining adds over a slow disk left a million requests pending,
    /// and every save shifted them all (the event loop froze for minutes).
    @Test("20,000 changes held behind unsaved ones are all published and answered in order once the saves complete")
    func manyPendingSaves() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        var requests = store.enqueued.makeAsyncIterator()
        let count = 20_000
        var submissions: [Submission] = []
        var saves: [ManualStore.Pending] = []
        for n in 1...count {
            submissions.append(await list.submit(.add(title: "Book \(n)")))
            saves.append(try #require(await requests.next()))
        }
        // Completed in store order, each one publishing what is saved at the front.
        for save in saves { save.succeed() }
        var revisions: [Revision] = []
        for submission in submissions {
            revisions.append(try await list.outcome(of: submission).get().revision)
        }
        #expect(revisions == (1...Revision(count)).map { $0 })
        #expect(await list.snapshot().items.count == count)
    }

    /// Found by review: one save released 160,000 requests queued behind it in a single turn of the event loop.
    @Test("10,000 refused requests queued behind one save are all answered, in order, over several turns")
    func longRunBehindOneSave() async throws {
        let list = try await makeList(store: store, ids: ids, clock: clock)
        var requests = store.enqueued.makeAsyncIterator()
        let first = await list.submit(.add(title: "One"))
        let save = try #require(await requests.next())
        var refused: [Submission] = []
        for n in 1...10_000 { refused.append(await list.submit(.add(title: "Stale \(n)"), expect: 0)) }
        save.succeed()
        #expect(try await list.outcome(of: first).get().revision == 1)
        for submission in refused {
            #expect(await list.outcome(of: submission) == .failure(.conflict(current: 1)))
        }
        #expect(store.enqueueCount == 1)
    }
}
