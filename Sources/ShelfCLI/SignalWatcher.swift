import Dispatch
import Glibc

/// Turns SIGINT and SIGTERM into an async sequence for `shelf watch`, and ignores SIGPIPE: a server gone away
/// shows as `EPIPE` on the socket (which also sends with MSG_NOSIGNAL), and `Output.command` ends `shelf` itself
/// when its reader goes away.
final class SignalWatcher {
    /// The signals received, in order.
    let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(_ watched: [Int32] = [SIGINT, SIGTERM]) {
        signal(SIGPIPE, SIG_IGN)
        let (stream, sink) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        sources = watched.map { number in
            // The default action must be off, or the process dies before the source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in sink.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
