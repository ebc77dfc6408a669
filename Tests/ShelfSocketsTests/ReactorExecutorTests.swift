import Glibc
@testable import ShelfSockets
import Synchronization
import Testing
import ShelfTestSupport

/// The reactor's event loop runs tasks that prefer it (SE-0417 task executor preference).
struct ReactorExecutorTests {
    @Test("a task that prefers the reactor's executor runs on the reactor thread, the same one every time")
    func tasksRunOnTheReactorThread() async throws {
        let reactor = try Reactor()
        let threads = ThreadLog()
        try await withDeadline {
            for _ in 0..<20 {
                await Task(executorPreference: reactor.executor) {
                    threads.record()
                    await Task.yield()
                    threads.record()
                }.value
            }
        }
        #expect(threads.seen.count == 1)
        #expect(!threads.seen.contains(UInt(pthread_self())))
    }

    @Test("tasks on the loop that wait for the next round take turns, one round each")
    func nextRoundTakesTurns() async throws {
        let reactor = try Reactor()
        let order = StepLog()
        try await withDeadline {
            // Both are started from one job on the loop, so they start in the same round.
            await Task(executorPreference: reactor.executor) {
                await withTaskGroup(of: Void.self) { group in
                    for name in ["A", "B"] {
                        group.addTask(executorPreference: reactor.executor) {
                            for _ in 0..<4 {
                                order.append(name)
                                await reactor.executor.nextRound()
                            }
                        }
                    }
                }
            }.value
        }
        let seen = order.steps
        #expect(seen.count == 8)
        // Neither runs two steps in a row while the other has one waiting.
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 }, "\(seen)")
    }

    @Test("reads on the loop reuse one buffer; off the loop, or larger than it, each read gets its own")
    func readBufferReuse() async throws {
        let reactor = try Reactor()
        let executor = reactor.executor
        let address: @Sendable (Int) -> UInt = { capacity in
            executor.withReadBuffer(capacity: capacity) { buffer in
                buffer.count >= capacity ? UInt(bitPattern: buffer.baseAddress) : 0
            }
        }
        let onLoop = try await withDeadline {
            await Task(executorPreference: executor) { [address(16), address(65_536), address(65_537)] }.value
        }
        #expect(onLoop[0] != 0)
        #expect(onLoop[0] == onLoop[1])
        #expect(onLoop[2] != onLoop[0])
        #expect(address(16) != onLoop[0])
    }

    @Test("work for the end of the round, as a closure or as a value, runs after the round's jobs, in the order given; off the loop it is refused")
    func afterRoundRunsInOrderAfterTheJobs() async throws {
        let reactor = try Reactor()
        let executor = reactor.executor
        let order = StepLog()
        let offLoop = executor.afterRound(LoggedStep(log: order, name: "never"))
        try await withDeadline {
            await Task(executorPreference: executor) {
                order.append("job")
                let closureKept = executor.afterRound { @Sendable in order.append("closure") }
                let valueKept = executor.afterRound(LoggedStep(log: order, name: "value"))
                #expect(closureKept && valueKept)
                order.append("job continues")
                // Resumed at the end of this round, after the two above.
                await executor.nextRound()
                order.append("next round")
            }.value
        }
        #expect(!offLoop)
        #expect(order.steps == ["job", "job continues", "closure", "value", "next round"])
    }

    /// Found by review: such work waited in the queue while the loop slept in epoll_wait, until some other event.
    @Test("work that round-end work gives to the end of the round runs in the same round, with nothing else happening")
    func roundEndWorkAddedAtTheRoundEndRuns() async throws {
        let reactor = try Reactor()
        let executor = reactor.executor
        let order = StepLog()
        try await withDeadline {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let finished = Mutex<CheckedContinuation<Void, Never>?>(done)
                Task(executorPreference: executor) {
                    _ = executor.afterRound { @Sendable in
                        order.append("first")
                        _ = executor.afterRound { @Sendable in
                            order.append("second")
                            finished.withLock { $0.take() }?.resume()
                        }
                    }
                }
            }
        }
        #expect(order.steps == ["first", "second"])
    }

    @Test("off the loop, waiting for the next round returns at once")
    func nextRoundOffTheLoop() async throws {
        let reactor = try Reactor()
        try await withDeadline { await reactor.executor.nextRound() }
    }

    @Test("jobs enqueued from other threads while the loop sleeps in epoll_wait are run")
    func enqueuesFromOtherThreadsWakeTheLoop() async throws {
        let reactor = try Reactor()
        let pair = try await LoopbackPair.make(reactor: reactor)
        defer { pair.close() }
        try await withDeadline {
            var total = 0
            for round in 1...50 {
                // Each task parks on a socket of this reactor, then is resumed by a write from the pool.
                async let echoed = Task(executorPreference: reactor.executor) {
                    try await pair.server.read(exactly: 1)
                }.value
                try await pair.client.write([UInt8(round)])
                total += Int(try await echoed[0])
            }
            #expect(total == (1...50).reduce(0, +))
        }
    }
}

/// The threads a task ran on.
private final class ThreadLog: Sendable {
    private let threads = Mutex<Set<UInt>>([])

    func record() {
        threads.withLock { _ = $0.insert(UInt(pthread_self())) }
    }

    var seen: Set<UInt> { threads.withLock { $0 } }
}

/// Steps recorded from several tasks, in the order they ran.
final class StepLog: Sendable {
    private let recorded = Mutex<[String]>([])
    func append(_ step: String) { recorded.withLock { $0.append(step) } }
    var steps: [String] { recorded.withLock { $0 } }
}

/// Round-end work given as a value (`ReactorExecutor.afterRound(_: some RoundEndWork)`).
struct LoggedStep: RoundEndWork {
    let log: StepLog
    let name: String

    func roundEnded() {
        log.append(name)
    }
}
