import Foundation
import Glibc
import ShelfCommandLine

/// The write end of the self-pipe the signal handler writes to; set once, before the handler is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// SIGINT and SIGTERM for `shelfd`: a `sigaction` handler (process-wide, so it runs whichever thread the kernel
/// picks) writes the signal number to a pipe, and a dedicated thread reads it. The handler is installed
/// synchronously before the `listening` line, so a signal sent at any moment after it is never lost — a Dispatch
/// signal source arms itself asynchronously and missed early signals.
final class TerminationSignals: Sendable {
    /// The signals received, in order.
    let signals: AsyncStream<Int32>

    init() {
        signal(SIGPIPE, SIG_IGN)
        let (stream, sink) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // No pipe: fall back to the default actions (the process ends on the signal, without a clean stop).
            sink.finish()
            return
        }
        // Glibc's module has no pipe2; shelfd starts no processes, so nothing can inherit the ends in between.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipeWriteEnd = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            // Only async-signal-safe calls here: one write(2), and errno put back as it was, for the code the
            // signal interrupted may be about to read it.
            let interruptedErrno = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(signalPipeWriteEnd, &byte, 1)
            errno = interruptedErrno
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        let readEnd = ends[0]
        Thread.detachNewThread { @Sendable in
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 {
                    sink.yield(Int32(byte))
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
