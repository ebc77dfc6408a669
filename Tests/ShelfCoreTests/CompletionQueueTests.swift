import Testing
@testable import ShelfCore

/// The queue that carries a store's completions to the list, taken a slice at a time.
@Suite struct CompletionQueueTests {
    @Test("under steady load that never lets it empty, the queue keeps only about what is live, in order")
    func boundedUnderSteadyLoad() throws {
        let queue = CompletionQueue()
        var pushed: UInt64 = 0
        func push(_ count: Int) {
            for _ in 0..<count {
                _ = queue.push(ReadingList.Completion(ticket: pushed, generation: 0, result: .success(())))
                pushed += 1
            }
        }
        // The store stays 300 completions ahead of a list that takes 256 per turn (found by review: 1,024,300
        // completions held for 300 live ones after 4,000 turns).
        push(300)
        var taken: [UInt64] = []
        for _ in 0..<4000 {
            taken += try #require(queue.take(limit: 256)).map(\.ticket)
            push(256)
        }
        #expect(taken == Array(0..<UInt64(taken.count)))
        #expect(queue.storedCount < 3000, "holds \(queue.storedCount) completions for \(pushed - UInt64(taken.count)) live ones")
    }

    @Test("exactly the first push after the queue went idle starts a drain, and the drain takes them in order")
    func oneDrainAtATime() {
        let queue = CompletionQueue()
        func completion(_ ticket: UInt64) -> ReadingList.Completion {
            ReadingList.Completion(ticket: ticket, generation: 0, result: .success(()))
        }
        #expect(queue.push(completion(0)) == true)
        #expect(queue.push(completion(1)) == false)
        #expect(queue.take(limit: 1)?.map(\.ticket) == [0])
        // Pushed while the drain is still taking: the running drain gets it.
        #expect(queue.push(completion(2)) == false)
        #expect(queue.take(limit: 10)?.map(\.ticket) == [1, 2])
        #expect(queue.take(limit: 10) == nil)
        // The drain ended on an empty queue: the next push starts another.
        #expect(queue.push(completion(3)) == true)
        #expect(queue.take(limit: 10)?.map(\.ticket) == [3])
    }
}
