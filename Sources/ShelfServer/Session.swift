import ShelfCore
import ShelfSockets
import ShelfWire
import Synchronization

/// One client connection: reads request lines, hands them to the `ReadingList` in arrival order, and writes the
/// replies in the same order (pipelining; shared/design.md, invariant 7), interleaved with `changed`
/// notifications when the connection watches.
///
/// Two tasks: the reader frames lines, decodes them, queues one reply job per request on the `Outbox` and then
/// carries the request out (so the list sees one connection's requests in order; a read first waits for the
/// connection's earlier saves); the writer runs the jobs in order and writes their replies. A session never throws:
/// whatever the peer does ends, at worst, this session alone.
final class Session: Sendable {
    let connection: TCPConnection
    let list: ReadingList
    let feed: ChangeFeed
    let configuration: ServerConfiguration
    let log: ServerLog
    let outbox: Outbox
    private let reader = Mutex<ReaderState>(ReaderState())

    private struct ReaderState {
        var task: Task<Void, Never>?
        var stopRequested = false
    }

    init(connection: TCPConnection, list: ReadingList, feed: ChangeFeed, configuration: ServerConfiguration, log: ServerLog) {
        self.connection = connection
        self.list = list
        self.feed = feed
        self.configuration = configuration
        self.log = log
        outbox = Outbox(maxBytes: configuration.maxOutboundBytes)
    }

    /// Serves the connection until the peer closes it, it fails, or `stop()` is called; then closes it.
    func run() async {
        log("connection \(connection.id) from \(connection.peer) opened")
        let window = RequestWindow(size: configuration.maxPendingRequests)
        let task = Task { await self.readLoop(window: window) }
        let stopNow = reader.withLock { state -> Bool in
            state.task = task
            return state.stopRequested
        }
        if stopNow { task.cancel() }
        let ending = await writeLoop(window: window)
        feed.remove(connection.id)
        await task.value
        connection.close()
        log("connection \(connection.id) closed\(ending.map { " (\($0))" } ?? "")")
    }

    /// Stops reading new requests; replies already owed are still written, then the connection closes.
    func stop() {
        let task = reader.withLock { state -> Task<Void, Never>? in
            state.stopRequested = true
            return state.task
        }
        task?.cancel()
    }

    private func readLoop(window: RequestWindow) async {
        defer { outbox.finish() }
        var framer = LineFramer(maxLineBytes: configuration.maxLineBytes)
        var progress = ReadProgress()
        while !Task.isCancelled {
            let bytes: [UInt8]
            do {
                bytes = try await connection.read()
            } catch {
                return
            }
            let atEnd = bytes.isEmpty
            // The last line may lack its LF; it is still answered, then the session ends.
            let events = atEnd ? framer.finish() : framer.push(bytes)
            for event in events {
                if Task.isCancelled { return }
                await window.acquire()
                await handle(event, progress: &progress)
            }
            if atEnd { return }
        }
    }

    /// Runs the reply jobs in order and writes their lines, each after the notifications it must follow. After a
    /// write fails (the peer vanished) it keeps running the remaining jobs without writing, so every submitted
    /// request is still collected.
    /// - Returns: why the connection ended early, if it did.
    private func writeLoop(window: RequestWindow) async -> String? {
        var ending: String?
        while let next = await outbox.next() {
            var bytes: [UInt8]
            switch next {
            case .notifications(let lines):
                bytes = lines
            case .job(let job):
                let reply = await job()
                window.release()
                guard let reply else { continue }
                bytes = outbox.takeNotifications(upTo: reply.revision)
                bytes.append(contentsOf: reply.line)
            case .overflow:
                if ending == nil { await cutOffSlowConsumer() }
                ending = ending ?? "slow consumer: more than \(outbox.maxBytes) bytes of notifications queued"
                continue
            }
            guard ending == nil, !bytes.isEmpty else { continue }
            do {
                try await connection.write(bytes)
            } catch {
                ending = "\(error)"
                // Wakes the reader so the session ends.
                connection.close()
            }
        }
        return ending
    }

    /// Tells a slow consumer why it is cut off, if its socket takes the line within a second, then closes.
    private func cutOffSlowConsumer() async {
        feed.remove(connection.id)
        let line = ServerNotification.closing(
            reason: "slow_consumer",
            message: "Closing: you were sent changes faster than you read them (over \(outbox.maxBytes) bytes queued)"
        ).line
        let connection = self.connection
        let closer = Task {
            try? await Task.sleep(for: .seconds(1))
            connection.close()
        }
        try? await connection.write(line)
        closer.cancel()
        connection.close()
    }
}
