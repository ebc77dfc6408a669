import Glibc
import ShelfCommandLine

/// Turns SIGINT and SIGTERM into an async sequence for `shelf watch`, and ignores SIGPIPE: a server gone away
/// shows as `EPIPE` on the socket (which also sends with MSG_NOSIGNAL), and `Output.command` ends `shelf` itself
/// when its reader goes away.
final class SignalWatcher {
    /// The signals received, in order.
    let signals: AsyncStream<Int32>
    private let events: SignalEvents

    init(_ watched: [Int32] = [SIGINT, SIGTERM]) {
        signal(SIGPIPE, SIG_IGN)
        events = SignalEvents(watched)
        signals = events.signals
    }

    deinit {
        events.cancel()
    }
}
