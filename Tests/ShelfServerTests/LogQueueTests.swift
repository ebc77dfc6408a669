import Dispatch
@testable import ShelfServer
import Synchronization
import Testing

/// `LogQueue`: lines in order on the queue's thread; at most `maxPending` waiting; the rest counted and reported.
struct LogQueueTests {
    private final class Sink: Sendable {
        let lines = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let blocking = Atomic<Bool>(true)

        func write(_ line: String) {
            if blocking.load(ordering: .acquiring) { gate.wait() }
            lines.withLock { $0.append(line) }
        }
    }

    @Test("while the sink is stalled, lines past the limit are dropped and counted; the count is logged afterwards")
    func boundedWhileStalled() async throws {
        let sink = Sink()
        let queue = LogQueue(sink: { sink.write($0) })
        let total = LogQueue.maxPending + 5
        for n in 1...total { queue.add("line \(n)") }
        sink.blocking.store(false, ordering: .releasing)
        sink.gate.signal()
        await queue.flush(within: 30)
        let lines = sink.lines.withLock { $0 }
        // The first line was with the sink when the rest came: it counts against the limit. The count follows it.
        #expect(lines.count == LogQueue.maxPending + 1)
        #expect(lines.first == "line 1")
        #expect(lines.dropFirst().first == "5 log lines dropped: standard error was not being read")
        #expect(lines.last == "line \(LogQueue.maxPending)")
    }

    @Test("flush returns after its limit when the sink never takes a line")
    func flushIsBounded() async {
        let sink = Sink()
        let queue = LogQueue(sink: { sink.write($0) })
        queue.add("stuck")
        await queue.flush(within: 0.2)
        #expect(sink.lines.withLock { $0 }.isEmpty)
        sink.blocking.store(false, ordering: .releasing)
        sink.gate.signal()
    }
}
