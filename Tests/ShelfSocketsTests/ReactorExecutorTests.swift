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
