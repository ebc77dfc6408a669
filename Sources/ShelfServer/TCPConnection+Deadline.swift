import ShelfSockets
import Synchronization

/// A write that waited `limit` for the peer to read was given up, and the connection closed
/// (`TCPConnection.write(_:within:)`; protocol/PROTOCOL.md §10). Its description is the log's reason.
struct WriteTimedOut: Error, CustomStringConvertible {
    /// How long the write waited.
    let limit: Duration

    var description: String { "write timed out: the peer read nothing for \(Self.spelled(limit))" }

    /// `60 s`, or `250 ms` below a second or for a fraction of one.
    static func spelled(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }
}

extension TCPConnection {
    /// Writes `bytes`, closing the connection if the peer has not taken them within `limit`: a client that stops
    /// reading must not hold its connection slot (and the replies owed to it) forever.
    /// - Throws: `WriteTimedOut` once the deadline closed the connection; otherwise what `write(_:)` throws.
    func write(_ bytes: ArraySlice<UInt8>, within limit: Duration) async throws {
        // Most writes fit in the socket buffer at once: only one that has to wait gets a deadline timer.
        let sent = try writeNow(bytes)
        if sent == bytes.count { return }
        let timedOut = Atomic(false)
        let closer = executor.schedule(after: limit) { [self] in
            timedOut.store(true, ordering: .relaxed)
            close()
        }
        defer { closer.cancel() }
        do {
            try await write(bytes.dropFirst(sent))
        } catch {
            if timedOut.load(ordering: .relaxed) { throw WriteTimedOut(limit: limit) }
            throw error
        }
    }

    /// Sends one last line if the peer takes it within a second, then closes the connection: when `lingering`,
    /// gracefully, for at most another second (`closeGracefully(within:)`), so a client that had sent a request gets
    /// the line and then a clean end of stream; otherwise at once. (Closing with its request unread resets the
    /// connection, and `nc` then often showed nothing.) Linger only when no other task reads this connection:
    /// closing gracefully reads, and a second concurrent read stops the process.
    func sayLastLine(_ line: [UInt8], lingering: Bool) async {
        try? await write(line[...], within: Self.lastLineLimit)
        if lingering { await closeGracefully(within: Self.lastLineLimit) } else { close() }
    }

    /// How long `sayLastLine` waits for the peer to take the line, and then for it to acknowledge it: 1 s each.
    static let lastLineLimit: Duration = .seconds(1)

    /// Sends FIN after what was written, then reads and drops what the peer still sends until the peer's TCP has
    /// acknowledged every byte sent to it (`unacknowledgedBytes`) or the peer has closed its side, for at most
    /// `limit`; then closes.
    ///
    /// Why: closing with unread input, or with input still arriving, makes the kernel reset the connection, and a
    /// reset throws away what was not yet delivered. A client that pipelines faster than it reads can have
    /// megabytes of replies queued when shutdown comes (dropping at most 1 MiB of its input, the rule until then,
    /// lost 14,332 replies to saved changes of such a client, with a reply cut in half).
    func closeGracefully(within limit: Duration) async {
        shutdownWrite()
        let closer = close(after: limit)
        // The peer's acknowledgement of the last bytes (the FIN counts as one) is no input, so it wakes no read:
        // look every 10 ms, and close as soon as the peer has everything (a silent peer held the loop below for
        // the whole limit, and shutdown with it).
        let watcher = AcknowledgementWatch(connection: self)
        watcher.start()
        while unacknowledgedBytes != 0, let bytes = try? await read(), !bytes.isEmpty {}
        watcher.stop()
        closer.cancel()
        close()
    }

    /// How often a closing connection looks whether the peer has acknowledged everything sent: 10 ms.
    static let acknowledgementPoll: Duration = .milliseconds(10)

    /// Closes the connection after `delay` unless the returned timer is cancelled first: the one timer behind every
    /// "give the peer a moment, then close" in the server, on the event loop's timers (no task, nothing on the
    /// global pool).
    @discardableResult
    func close(after delay: Duration) -> ReactorTimer {
        executor.schedule(after: delay) { [self] in close() }
    }
}

/// Closes a connection once its peer has acknowledged every byte sent, looking every
/// `TCPConnection.acknowledgementPoll` on the loop's timers until stopped.
private final class AcknowledgementWatch: Sendable {
    private let connection: TCPConnection
    private let timer = Mutex<ReactorTimer?>(nil)
    private let stopped = Atomic(false)

    init(connection: TCPConnection) {
        self.connection = connection
    }

    func start() {
        let next = connection.executor.schedule(after: TCPConnection.acknowledgementPoll) { [self] in look() }
        timer.withLock { $0 = next }
        // A stop that came between scheduling and storing would have missed this timer.
        if stopped.load(ordering: .relaxed) { next.cancel() }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        timer.withLock { $0?.cancel() }
    }

    private func look() {
        guard !stopped.load(ordering: .relaxed) else { return }
        if connection.unacknowledgedBytes == 0 {
            connection.close()
        } else {
            start()
        }
    }
}
