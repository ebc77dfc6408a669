import Testing
@testable import ShelfCore

/// The queue that carries a store's completions to the list, taken a slice at a time.
@Suite struct CompletionQueueTests {
    @Test("under steady load that never lets it empty, the queue keeps only about what is live, in order")
    func boundedUnderSteadyLoad() async throws {
        let queue = CompletionQueue()
        var pushed: UInt64 = 0
        func push(_ count: Int) {
            for _ in 0..<count {
                queue.push(ReadingList.Completion(ticket: pushed, generation: 0, result: .success(())))
                pushed += 1
            }
        }
        // The store stays 300 completions ahead of a list that takes 256 per turn (found by review: 1,024,300
        // completions held for 300 live ones after 4,000 turns).
        push(300)
        var taken: [UInt64] = []
        for _ in 0..<4000 {
            taken += try #require(await queue.next(limit: 256)).map(\.ticket)
            push(256)
        }
        #expect(taken == Array(0..<UInt64(taken.count)))
        #expect(queue.storedCount < 3000, "holds \(queue.storedCount) completions for \(pushed - UInt64(taken.count)) live ones")
    }
}
