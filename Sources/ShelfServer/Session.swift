import ShelfCore
import ShelfSockets
import ShelfWire
import Synchronization

/// One client connection: reads request lines, hands them to the `ReadingList` in arrival order, and writes the
/// replies in the same order (pipelining; shared/design.md, invariant 7).
///
/// Two tasks: the reader frames lines, decodes them and submits mutations at once (so the list sees one
/// connection's requests in order); each request becomes a reply job that the writer runs and writes, in order.
/// Reads run in the writer, when their turn comes, so they see every earlier change of the same connection.
/// A session never throws: whatever the peer does ends, at worst, this session alone.
final class Session: Sendable {
    /// Produces one reply line (JSON + LF), or `nil` when there is nothing to send (notifications).
    typealias ReplyJob = @Sendable () async -> [UInt8]?

    let connection: TCPConnection
    let list: ReadingList
    let configuration: ServerConfiguration
    let log: ServerLog
    private let reader = Mutex<ReaderState>(ReaderState())

    private struct ReaderState {
        var task: Task<Void, Never>?
        var stopRequested = false
    }

    init(connection: TCPConnection, list: ReadingList, configuration: ServerConfiguration, log: ServerLog) {
        self.connection = connection
        self.list = list
        self.configuration = configuration
        self.log = log
    }

    /// Serves the connection until the peer closes it, it fails, or `stop()` is called; then closes it.
    func run() async {
        log("connection \(connection.id) from \(connection.peer) opened")
        let (jobs, sink) = AsyncStream.makeStream(of: ReplyJob.self)
        let window = RequestWindow(size: configuration.maxPendingRequests)
        let task = Task { await self.readLoop(sink: sink, window: window) }
        let stopNow = reader.withLock { state -> Bool in
            state.task = task
            return state.stopRequested
        }
        if stopNow { task.cancel() }
        let writeError = await writeLoop(jobs: jobs, window: window)
        await task.value
        connection.close()
        log("connection \(connection.id) closed\(writeError.map { " (\($0))" } ?? "")")
    }

    /// Stops reading new requests; replies already owed are still written, then the connection closes.
    func stop() {
        let task = reader.withLock { state -> Task<Void, Never>? in
            state.stopRequested = true
            return state.task
        }
        task?.cancel()
    }

    private func readLoop(sink: AsyncStream<ReplyJob>.Continuation, window: RequestWindow) async {
        defer { sink.finish() }
        var framer = LineFramer(maxLineBytes: configuration.maxLineBytes)
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
                sink.yield(await replyJob(for: event))
            }
            if atEnd { return }
        }
    }

    /// Runs the reply jobs in order and writes their lines. After a write fails (the peer vanished) it keeps
    /// running the remaining jobs without writing, so every submitted request is still collected.
    private func writeLoop(jobs: AsyncStream<ReplyJob>, window: RequestWindow) async -> SocketError? {
        var failure: SocketError?
        for await job in jobs {
            let line = await job()
            window.release()
            guard let line, failure == nil else { continue }
            do {
                try await connection.write(line)
            } catch {
                failure = error as? SocketError ?? .closed
                // Wakes the reader so the session ends.
                connection.close()
            }
        }
        return failure
    }
}
