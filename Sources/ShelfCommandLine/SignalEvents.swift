import Dispatch
import Glibc

/// Signals as an async sequence, for both command lines (`shelf watch`, the live view): each one's default action
/// is turned off so that a Dispatch source sees it, not the process killed or stopped before it (a live view that
/// watches SIGTSTP restores the terminal first, then stops itself with SIGSTOP).
package final class SignalEvents {
    /// The signals received, in order.
    package let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]
    private let watched: [Int32]

    /// Starts watching `watched`.
    package init(_ watched: [Int32]) {
        self.watched = watched
        let (stream, sink) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        sources = watched.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in sink.yield(number) }
            source.resume()
            return source
        }
    }

    /// Stops watching; the signals stay ignored.
    package func cancel() {
        for source in sources { source.cancel() }
    }

    /// Stops watching and gives each signal its default action back (the live view, once the terminal is restored:
    /// Ctrl-Z and SIGTERM work as usual again).
    package func restoreDefaults() {
        cancel()
        for number in watched { signal(number, SIG_DFL) }
    }
}
