import Foundation
import Glibc
import Synchronization

/// Reads the terminal's input on a thread of its own and hands on the keys (`KeyDecoder`). An Esc with nothing
/// after it within 30 ms is the Esc key; a longer gap inside a sequence is not something a terminal makes.
final class KeyReader: Sendable {
    /// The keys, in order; it ends when input ends (the terminal hung up) or on `stop()`.
    let keys: AsyncStream<Key>
    private let sink: AsyncStream<Key>.Continuation
    /// Written to wake the thread's `poll` for `stop()`.
    private let wake: (read: Int32, write: Int32)
    /// `stop()` was called; the thread has ended (and closed the pipe). Held while the pipe is written or
    /// closed, so `stop()` never writes to a descriptor the thread closed.
    private let lifecycle = Mutex((stopped: false, ended: false))

    /// Starts reading `fd`; `nil` when a pipe for stopping cannot be made.
    init?(fd: Int32) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        wake = (pipeEnds[0], pipeEnds[1])
        (keys, sink) = AsyncStream.makeStream(of: Key.self)
        Thread.detachNewThread { [self] in run(fd) }
    }

    /// Stops reading; the keys end.
    func stop() {
        lifecycle.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            guard !state.ended else { return }
            // One byte into an empty pipe: never blocks.
            var byte: UInt8 = 1
            while Glibc.write(wake.write, &byte, 1) < 0, errno == EINTR {}
        }
    }

    private func run(_ fd: Int32) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer {
            sink.finish()
            lifecycle.withLock { state in
                state.ended = true
                close(wake.read)
                close(wake.write)
            }
        }
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, decoder.isWaiting ? 30 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if ready == 0 {
                for key in decoder.flush() { sink.yield(key) }
                continue
            }
            let count = read(fd, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            if count == 0 { return }
            for key in decoder.push(buffer[0..<count]) { sink.yield(key) }
        }
    }
}
