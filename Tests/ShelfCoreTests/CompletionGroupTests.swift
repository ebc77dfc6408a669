import Foundation
import Testing
@testable import ShelfCore

/// A group of store completions handled in one actor call (`ReadingList.complete(_:)`, what the completion queue
/// hands over after a group commit): the saved ones are published together, in order, and a failure in the middle
/// publishes what was saved before it and rolls back the rest.
@Suite(.timeLimit(.minutes(1)))
struct CompletionGroupTests {
    private static func submitThree(_ list: ReadingList) async throws -> [UInt64] {
        var tickets: [UInt64] = []
        for title in ["A", "B", "C"] {
            guard case .pending(let ticket) = await list.submit(.add(title: title)) else {
                Issue.record("\(title) was answered before its save")
                throw CancellationError()
            }
            tickets.append(ticket)
        }
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
        guard case .pending(let a) = await list.submit(.add(title: "A")) else {
            Issue.record("A was answered before its save")
            return
        }
        var refused: [Submission] = []
        for _ in 0..<5_000 { refused.append(await list.submit(.add(title: "stale"), expect: 999)) }
        guard case .pending(let b) = await list.submit(.add(title: "B")),
              case .pending(let c) = await list.submit(.add(title: "C"))
        else {
            Issue.record("B or C was answered before its save")
            return
        }

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
