import Foundation
import Testing
@testable import ShelfCore

/// A group of store completions handled in one actor call (`ReadingList.complete(_:)`, what the completion queue
/// hands over after a group commit): the saved ones are published together, in order, and a failure in the middle
/// publishes what was saved before it and rolls back the rest.
@Suite(.timeLimit(.minutes(1)))
struct CompletionGroupTests {
    /// Submits an add of `title`, which must wait for its save, and returns its ticket.
    private static func submitPending(_ list: ReadingList, _ title: String) async throws -> UInt64 {
        guard case .pending(let ticket) = await list.submit(.add(title: title)) else {
            Issue.record("\(title) was answered before its save")
            throw CancellationError()
        }
        return ticket
    }

    private static func submitThree(_ list: ReadingList) async throws -> [UInt64] {
        var tickets: [UInt64] = []
        for title in ["A", "B", "C"] { tickets.append(try await submitPending(list, title)) }
        return tickets
    }

    /// A list on `store` with a recorder of published revisions and three adds (A, B, C) waiting for their saves.
    private static func threePending(on store: ManualStore) async throws -> (ReadingList, Recorder<Revision>, [UInt64]) {
        let list = try await makeList(store: store)
        let published = Recorder<Revision>()
        _ = await list.subscribe { published.append($0.revision) }
        return (list, published, try await submitThree(list))
    }

    private static func completion(_ ticket: UInt64, _ result: Result<Void, StorageError>, generation: UInt64 = 0) -> ReadingList.Completion {
        ReadingList.Completion(ticket: ticket, generation: generation, result: result)
    }

    @Test("three saves completed in one group: published in revision order and answered in submission order")
    func allSaved() async throws {
        let (list, published, tickets) = try await Self.threePending(on: ManualStore())

        await list.complete(tickets.map { Self.completion($0, .success(())) })

        var revisions: [Revision] = []
        for ticket in tickets { revisions.append(try await list.answer(ticket).get().revision) }
        #expect(revisions == [1, 2, 3])
        #expect(published.all == [1, 2, 3])
        #expect(await list.snapshot().items.items.map(\.title) == ["A", "B", "C"])
        #expect(await list.revision == 3)
    }

    @Test("a group of success, failure, success: the first is published, the other two fail, and the next change is revision 2 in generation 1")
    func failureInTheMiddle() async throws {
        let store = ManualStore()
        let (list, published, tickets) = try await Self.threePending(on: store)

        await list.complete([
            Self.completion(tickets[0], .success(())),
            Self.completion(tickets[1], .failure(.injected("disk full"))),
            // The store went on after the failure, but the list rolled back: this one is stale.
            Self.completion(tickets[2], .success(())),
        ])

        #expect(try await list.answer(tickets[0]).get().revision == 1)
        #expect(await list.answer(tickets[1]) == .failure(.storageFailed(.injected("disk full"))))
        #expect(await list.answer(tickets[2]) == .failure(.storageFailed(.injected("disk full"))))
        #expect(published.all == [1])
        #expect(await list.snapshot().items.items.map(\.title) == ["A"])
        #expect(await list.revision == 1)

        var requests = store.enqueued.makeAsyncIterator()
        for _ in 0..<3 { _ = await requests.next() }
        guard case .pending = await list.submit(.add(title: "D")) else {
            Issue.record("D was answered before its save")
            return
        }
        let next = try #require(await requests.next())
        #expect(next.commit.generation == 1)
        #expect(next.commit.base == 1)
        #expect(next.commit.changes.map(\.revision) == [2])
    }

    /// Found by review: the group was published one turn's worth (4,096 answers) before the rollback, so B, saved
    /// behind 5,000 refused requests, was answered `storageFailed` while the store kept it: the store then stood a
    /// revision ahead of the list and refused every later commit.
    @Test("a failure after saves held behind 5,000 refused requests: those saves are published and answered, only the failed one fails")
    func failureAfterALongSavedRun() async throws {
        let store = ManualStore()
        let list = try await makeList(store: store)
        let a = try await Self.submitPending(list, "A")
        var refused: [Submission] = []
        for _ in 0..<5_000 { refused.append(await list.submit(.add(title: "stale"), expect: 999)) }
        let b = try await Self.submitPending(list, "B")
        let c = try await Self.submitPending(list, "C")

        await list.complete([
            Self.completion(a, .success(())), Self.completion(b, .success(())),
            Self.completion(c, .failure(.injected("disk full"))),
        ])

        #expect(try await list.answer(a).get().revision == 1)
        #expect(try await list.answer(b).get().revision == 2)
        #expect(await list.answer(c) == .failure(.storageFailed(.injected("disk full"))))
        var conflicts = 0
        for submission in refused where await list.outcome(of: submission) == .failure(.conflict(current: 1)) {
            conflicts += 1
        }
        #expect(conflicts == 5_000)
        #expect(await list.revision == 2)
        #expect(await list.snapshot().items.items.map(\.title) == ["A", "B"])
    }

    /// Found by review: a rollback answered its whole backlog in one actor turn (1.3 s for 400,000 requests in a
    /// debug build), holding every other connection that long.
    @Test("a failure ahead of 5,000 waiting requests answers one turn's worth at once and the rest in later turns, all storageFailed, in order")
    func rollbackAnswersATurnAtATime() async throws {
        let store = ManualStore()
        let list = try await makeList(store: store)
        let a = try await Self.submitPending(list, "A")
        var waiting = [a]
        for _ in 0..<5_000 {
            guard case .pending(let ticket) = await list.submit(.add(title: "stale"), expect: 999) else {
                Issue.record("a request behind A was answered before A")
                return
            }
            waiting.append(ticket)
        }
        let answered = Recorder<ReadingListError?>()
        let order = Recorder<Int>()
        let done = AsyncStream<Void>.makeStream()
        let last = waiting.count - 1
        await list.waitForAll(waiting) { index, outcome in
            if case .failure(let error) = outcome { answered.append(error) } else { answered.append(nil) }
            order.append(index)
            if index == last { done.continuation.yield() }
        }

        let inTheFailingTurn = await list.completeCountingAnswers(
            [Self.completion(a, .failure(.injected("disk full")))], answered: answered)
        var iterator = done.stream.makeAsyncIterator()
        await iterator.next()

        #expect(inTheFailingTurn == ReadingList.answersPerTurn)
        #expect(order.all == Array(0..<waiting.count))
        #expect(answered.all.allSatisfy { $0 == .storageFailed(.injected("disk full")) })
        #expect(await list.revision == 0)
        _ = await list.submit(.add(title: "B"))
        var requests = store.enqueued.makeAsyncIterator()
        _ = await requests.next()
        #expect(try #require(await requests.next()).commit.generation == 1)
    }

    @Test("an add submitted while a rollback's answers are still going out is saved in the new generation on the rolled-back list and answered after them")
    func submitWhileAnswering() async throws {
        let store = ManualStore()
        let list = try await makeList(store: store)
        var requests = store.enqueued.makeAsyncIterator()
        var waiting = [try await Self.submitPending(list, "A")]
        for _ in 0..<5_000 {
            guard case .pending(let ticket) = await list.submit(.add(title: "stale"), expect: 999) else {
                Issue.record("a request behind A was answered before A")
                return
            }
            waiting.append(ticket)
        }
        let failed = try #require(await requests.next())
        let answers = Recorder<String>()
        let (answeredD, answeredDContinuation) = AsyncStream.makeStream(of: Void.self)

        await list.failThenSubmit(failed.commit, waiting: waiting, title: "D") { label, outcome in
            switch outcome {
            case .success(let result): answers.append("\(label) revision \(result.revision)")
            case .failure(let error): answers.append("\(label) \(error)")
            }
            if label == "D" { answeredDContinuation.yield() }
        }
        let saveOfD = try #require(await requests.next())
        #expect(saveOfD.commit.generation == 1)
        #expect(saveOfD.commit.base == 0)
        saveOfD.succeed()
        var iterator = answeredD.makeAsyncIterator()
        await iterator.next()

        let failure = "waiting \(ReadingListError.storageFailed(.injected("disk full")))"
        #expect(answers.all == Array(repeating: failure, count: waiting.count) + ["D revision 1"])
        #expect(await list.snapshot().items.items.map(\.title) == ["D"])
    }

    /// Found by review: a second rollback, while the first one's saved front still waited for its answers (held
    /// behind 5,000 refused requests), published that front again: watchers got revision 2 twice, and so did the
    /// history that `watch(since:)` resumes from.
    @Test("a second failure while the first rollback's saved front is still being answered publishes nothing twice")
    func secondFailureWhileAnswering() async throws {
        let store = ManualStore()
        let list = try await makeList(store: store)
        let published = Recorder<Revision>()
        _ = await list.subscribe { published.append($0.revision) }
        let a = try await Self.submitPending(list, "A")
        for _ in 0..<5_000 { _ = await list.submit(.add(title: "stale"), expect: 999) }
        let b = try await Self.submitPending(list, "B")
        let c = try await Self.submitPending(list, "C")

        await list.completeThenFailTheNextAdd(
            [Self.completion(a, .success(())), Self.completion(b, .success(())),
             Self.completion(c, .failure(.injected("disk full")))],
            failure: .injected("still full"))

        #expect(published.all == [1, 2])
        #expect(await list.revisionsInHistory(after: 0) == [1, 2])
        #expect(await list.revision == 2)
        #expect(await list.snapshot().items.items.map(\.title) == ["A", "B"])
        #expect(try await list.answer(b).get().revision == 2)
    }

    @Test("decidedOutcome gives a pending add's answer before its save, keeps it until it is taken, then nil")
    func decidedOutcomeOfAPendingAdd() async throws {
        let list = try await makeList(store: ManualStore())
        let a = try await Self.submitPending(list, "A")

        let before = try #require(await list.decidedOutcome(of: .pending(ticket: a)))
        #expect(try before.get().revision == 1)
        #expect(try before.get().item?.title == "A")
        await list.complete([Self.completion(a, .success(()))])
        #expect(await list.decidedOutcome(of: .pending(ticket: a)) == before)
        #expect(await list.answer(a) == before)
        #expect(await list.decidedOutcome(of: .pending(ticket: a)) == nil)
    }

    @Test("a completion of a rolled-back generation in a later group is dropped")
    func staleGroup() async throws {
        let (list, published, tickets) = try await Self.threePending(on: ManualStore())

        await list.complete([Self.completion(tickets[0], .failure(.injected("disk full")))])
        await list.complete([Self.completion(tickets[1], .success(())), Self.completion(tickets[2], .success(()))])

        for ticket in tickets {
            #expect(await list.answer(ticket) == .failure(.storageFailed(.injected("disk full"))))
        }
        #expect(published.all.isEmpty)
        #expect(await list.revision == 0)
    }
}

extension ReadingList {
    /// Hands each ticket's answer, once known, to `body` with the ticket's index in `tickets`.
    fileprivate func waitForAll(_ tickets: [UInt64], _ body: @escaping @Sendable (Int, Outcome) -> Void) {
        for (index, ticket) in tickets.enumerated() { wait(for: ticket, ClosureReceiver { body(index, $0) }) }
    }

    /// `complete(_:)`, then how many answers `answered` holds, in the same actor turn.
    fileprivate func completeCountingAnswers<Value>(_ group: [Completion], answered: Recorder<Value>) -> Int {
        complete(group)
        return answered.all.count
    }
}

extension ReadingList {
    /// `complete(group)`, then, in the same actor turn (before the rollback's answers are all out), an add of D
    /// whose save fails with `failure`.
    fileprivate func completeThenFailTheNextAdd(_ group: [Completion], failure: StorageError) {
        complete(group)
        guard case .pending(let ticket) = submit(.add(title: "D")) else {
            Issue.record("D was answered before its save")
            return
        }
        complete(Completion(ticket: ticket, generation: generation, result: .failure(failure)))
    }

    /// The revisions the history holds after `revision` (what `watch(since:)` would send first).
    fileprivate func revisionsInHistory(after revision: Revision) -> [Revision]? {
        history.changes(after: revision)?.map(\.revision)
    }
}

extension ReadingList {
    /// Fails `commit`'s save (that of `waiting.first`), then, in the same actor turn (its rollback's answers not all
    /// out yet), submits an add of `title`. `answered` gets each answer with its label: "waiting" or "D".
    fileprivate func failThenSubmit(
        _ commit: StoreCommit, waiting: [UInt64], title: String,
        answered: @escaping @Sendable (String, Result<MutationResult, ReadingListError>) -> Void
    ) {
        for ticket in waiting { wait(for: ticket, ClosureReceiver { answered("waiting", $0) }) }
        guard let first = waiting.first else { return }
        complete(Completion(ticket: first, generation: commit.generation, result: .failure(.injected("disk full"))))
        guard case .pending(let ticket) = submit(.add(title: title)) else {
            Issue.record("\(title) was answered before its save")
            return
        }
        wait(for: ticket, ClosureReceiver { answered(title, $0) })
    }
}
