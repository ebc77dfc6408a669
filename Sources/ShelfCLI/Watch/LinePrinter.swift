import Foundation
import Synchronization

/// Writes text to one stream on a thread of its own, in order, holding at most about `maxBytes` unwritten.
///
/// A standard stream nobody reads blocks its writer for as long as it is not read (`StandardStream` waits in
/// `poll`): that must be this thread, not one of the cooperative pool's. `print(_:)` suspends while more than
/// `maxBytes` wait, so a watch whose output is blocked stops taking notifications, and so stops reading its socket
/// (backpressure up to the server, which then cuts it off as a slow consumer and it resumes later).
final class LinePrinter: Sendable {
    private struct State {
        var queue: [String] = []
        var bytes = 0
        /// The thread is writing what it took; `drained()` waits for that too.
        var writing = false
        var threadWaits = false
        var closed = false
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The most bytes left unwritten before `print(_:)` waits (one text larger than that is taken alone).
    let maxBytes: Int
    private let state = Mutex(State())
    private let work = DispatchSemaphore(value: 0)

    /// A printer handing its text to `write`, which may block, on a thread of its own; the thread ends on `close()`.
    init(maxBytes: Int = 64 * 1024, write: @escaping @Sendable (String) -> Void) {
        self.maxBytes = maxBytes
        Thread.detachNewThread { [self] in run(write) }
    }

    /// Queues `text`; returns once what waits is under `maxBytes` again.
    func print(_ text: String) async {
        let full = state.withLock { state -> Bool in
            state.queue.append(text)
            state.bytes += text.utf8.count
            return state.bytes > maxBytes
        }
        wakeThread()
        guard full else { return }
        await withCheckedContinuation { continuation in
            let roomNow = state.withLock { state -> Bool in
                if state.bytes <= maxBytes || state.closed { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if roomNow { continuation.resume() }
        }
    }

    /// Returns once everything queued so far is written.
    func drained() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if (state.queue.isEmpty && !state.writing) || state.closed { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// How many `print(_:)` calls wait for room now (for tests).
    var waitingForRoom: Int {
        state.withLock { $0.roomWaiters.count }
    }

    /// Ends the thread once it has written what is queued; `print(_:)` and `drained()` no longer wait.
    func close() {
        state.withLock { $0.closed = true }
        wakeThread()
    }

    private func wakeThread() {
        let wake = state.withLock { state -> Bool in
            defer { state.threadWaits = false }
            return state.threadWaits
        }
        if wake { work.signal() }
    }

    private func run(_ write: @Sendable (String) -> Void) {
        while true {
            let (batch, ended) = state.withLock { state -> ([String], Bool) in
                let batch = state.queue
                state.queue.removeAll()
                state.writing = !batch.isEmpty
                if batch.isEmpty, !state.closed { state.threadWaits = true }
                return (batch, batch.isEmpty && state.closed)
            }
            if ended { break }
            if batch.isEmpty {
                work.wait()
                continue
            }
            // One write for what queued up meanwhile.
            write(batch.joined())
            let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.bytes -= batch.reduce(0) { $0 + $1.utf8.count }
                state.writing = false
                var woken: [CheckedContinuation<Void, Never>] = []
                if state.bytes <= maxBytes { swap(&woken, &state.roomWaiters) }
                if state.queue.isEmpty { woken += state.drainWaiters; state.drainWaiters.removeAll() }
                return woken
            }
            for continuation in woken { continuation.resume() }
        }
        let left = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.roomWaiters.removeAll(); state.drainWaiters.removeAll() }
            return state.roomWaiters + state.drainWaiters
        }
        for continuation in left { continuation.resume() }
    }
}
