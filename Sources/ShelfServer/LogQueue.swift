import Dispatch
import Synchronization

/// The serial queue behind `ServerLog.queued`: lines are stamped when they are added and reach the sink in order, on
/// the queue's own thread, never on the event loop. While standard error is stalled (a paused pipe), at most `maxPending` lines wait; later ones are
/// dropped and counted, and the count is logged once the sink takes lines again, so a stalled log cannot grow
/// memory without bound.
final class LogQueue: Sendable {
    /// The most lines waiting for the sink.
    static let maxPending = 10_000

    private let queue = DispatchQueue(label: "shelf.log")
    private let counts = Mutex<(pending: Int, dropped: Int)>((0, 0))
    private let stamp: @Sendable (String) -> String
    private let sink: @Sendable (String) -> Void

    /// - Parameters:
    ///   - stamp: turns a line into the text the sink gets (`ServerLog.stamped`), called as the line is added.
    ///   - sink: takes each stamped line, on the queue's thread.
    init(stamp: @escaping @Sendable (String) -> String = { $0 }, sink: @escaping @Sendable (String) -> Void) {
        self.stamp = stamp
        self.sink = sink
    }

    /// Queues one line (or counts it as dropped).
    func add(_ line: String) {
        let accepted = counts.withLock { counts -> Bool in
            guard counts.pending < Self.maxPending else {
                counts.dropped += 1
                return false
            }
            counts.pending += 1
            return true
        }
        guard accepted else { return }
        let stamped = stamp(line)
        queue.async { [self] in
            sink(stamped)
            let dropped = counts.withLock { counts -> Int in
                counts.pending -= 1
                defer { counts.dropped = 0 }
                return counts.dropped
            }
            if dropped > 0 {
                sink(stamp("\(ServerLog.count(dropped, "log line")) dropped: standard error was not being read"))
            }
        }
    }

    /// Waits until the lines queued so far have reached the sink, or for `limit` (seconds) at most: a stalled
    /// standard error must not keep the process from exiting.
    func flush(within limit: Double) async {
        let resumed = Mutex(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                let first = resumed.withLock { done -> Bool in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume() }
            }
            queue.async(execute: resumeOnce)
            DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: resumeOnce)
        }
    }
}
