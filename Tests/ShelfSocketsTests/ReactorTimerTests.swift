import Glibc
@testable import ShelfSockets
import Synchronization
import Testing
import ShelfTestSupport

/// The reactor's own timers: the heap behind them, and sleeping and scheduling on the loop.
struct ReactorTimerTests {
    @Test("due timers come out in deadline order; cancelled and future ones stay out")
    func heapOrder() {
        var timers = ReactorTimers()
        let start = ContinuousClock.now
        let fired = Mutex<[Int]>([])
        let offsets = [50, 10, 40, 20, 30, 70, 60]
        var ids: [Int: UInt64] = [:]
        for offset in offsets {
            ids[offset] = timers.schedule(at: start + .milliseconds(offset)) { fired.withLock { $0.append(offset) } }
        }
        let cancelled = timers.cancel(ids[20] ?? 0)
        let cancelledAgain = timers.cancel(ids[20] ?? 0)
        #expect(cancelled && !cancelledAgain)
        let earliest = timers.earliest()
        #expect(earliest == start + .milliseconds(10))
        for action in timers.takeDue(at: start + .milliseconds(50)) { action() }
        #expect(fired.withLock { $0 } == [10, 30, 40, 50])
        #expect(timers.count == 2)
        let next = timers.earliest()
        #expect(next == start + .milliseconds(60))
        #expect(timers.takeDue(at: start + .milliseconds(59)).isEmpty)
    }

    @Test("cancelled timers do not pile up in the heap: 10,000 timers scheduled and cancelled leave it small, and the live ones still fire in order")
    func cancelledDoNotPileUp() {
        var timers = ReactorTimers()
        let start = ContinuousClock.now
        let fired = Mutex<[Int]>([])
        for offset in [30, 10, 20] {
            _ = timers.schedule(at: start + .milliseconds(offset)) { fired.withLock { $0.append(offset) } }
        }
        for n in 0..<10_000 {
            let id = timers.schedule(at: start + .seconds(60) + .milliseconds(n)) {}
            timers.cancel(id)
        }
        #expect(timers.count == 3)
        #expect(timers.heapCount <= 2 * 3 + 1024 + 1)
        for action in timers.takeDue(at: start + .seconds(1)) { action() }
        #expect(fired.withLock { $0 } == [10, 20, 30])
    }

    @Test("the epoll timeout for a deadline is rounded up to whole milliseconds, 0 once it has passed")
    func timeoutRoundsUp() {
        #expect(ReactorJobQueue.milliseconds(until: .now - .seconds(1)) == 0)
        let timeout = ReactorJobQueue.milliseconds(until: .now + .microseconds(1500))
        #expect(timeout == 2 || timeout == 1)
        #expect(ReactorJobQueue.milliseconds(until: .now + .seconds(1_000_000_000)) == Int32.max)
    }

    @Test("a task sleeping on the loop wakes on the reactor thread after its delay, and a scheduled action runs there")
    func sleepsOnTheLoop() async throws {
        let reactor = try Reactor()
        let (loopThread, slept) = try await withDeadline {
            await Task(executorPreference: reactor.executor) { () -> (UInt, Duration) in
                let before = ContinuousClock.now
                try? await reactor.executor.sleep(for: .milliseconds(30))
                return (UInt(pthread_self()), ContinuousClock.now - before)
            }.value
        }
        #expect(slept >= .milliseconds(30))
        let actionThread = try await withDeadline {
            await withCheckedContinuation { (continuation: CheckedContinuation<UInt, Never>) in
                _ = reactor.executor.schedule(after: .milliseconds(5)) { continuation.resume(returning: UInt(pthread_self())) }
            }
        }
        #expect(actionThread == loopThread && loopThread != UInt(pthread_self()))
    }

    @Test("cancelling a sleeping task wakes it at once with CancellationError; a cancelled timer never runs")
    func cancellation() async throws {
        let reactor = try Reactor()
        let sleeper = Task(executorPreference: reactor.executor) { () -> Bool in
            do {
                try await reactor.executor.sleep(for: .seconds(3600))
                return false
            } catch {
                return true
            }
        }
        sleeper.cancel()
        #expect(try await withDeadline { await sleeper.value })
        let ran = Atomic(false)
        let timer = reactor.executor.schedule(after: .milliseconds(1)) { ran.store(true, ordering: .relaxed) }
        timer.cancel()
        // A later timer that fires shows the loop went past the cancelled one's deadline.
        try await withDeadline {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                _ = reactor.executor.schedule(after: .milliseconds(20)) { continuation.resume() }
            }
        }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }
}
