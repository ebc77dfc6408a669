import Foundation
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
    let listCache: ListReplyCache
    let configuration: ServerConfiguration
    let log: ServerLog
    /// The server's run id, for `hello`.
    let runID: UUID
    let outbox: Outbox
    /// The server-wide account of memory held for peers (`--max-memory-bytes`): the framer's unfinished line and
    /// the outbox's queued bytes are charged to it.
    let memory: MemoryAccount?
    /// Set when the server has a token: requests other than `hello`, `ping` and `auth` need `auth` first.
    let tokenCheck: TokenCheck?
    /// The server's authentication budget and guess slowdown; set exactly when `tokenCheck` is.
    let authGate: AuthGate?
    private let reader = Mutex<ReaderState>(ReaderState())
    /// When the peer last sent anything (for `--idle-timeout`).
    private let lastActivity = Mutex<ContinuousClock.Instant>(.now)
    /// The mutation whose save holds the direct write, while the list has not answered it: at most one at a time
    /// (`Session+DirectWrite.swift`). The session itself is the list's receiver for it, so waiting costs no
    /// allocation per request.
    let awaitedAnswer = Mutex<AwaitedAnswer?>(nil)

    private struct ReaderState {
        var task: Task<Void, Never>?
        var stopRequested = false
    }

    init(
        connection: TCPConnection, list: ReadingList, feed: ChangeFeed, listCache: ListReplyCache,
        configuration: ServerConfiguration, log: ServerLog, runID: UUID, authGate: AuthGate? = nil,
        memory: MemoryAccount? = nil
    ) {
        self.connection = connection
        self.list = list
        self.feed = feed
        self.listCache = listCache
        self.configuration = configuration
        self.log = log
        self.runID = runID
        self.memory = memory
        outbox = Outbox(maxBytes: configuration.maxOutboundBytes, memory: memory)
        tokenCheck = configuration.token.map(TokenCheck.init(token:))
        self.authGate = tokenCheck == nil ? nil : authGate ?? AuthGate(configuration: configuration)
    }

    /// How long one write may wait for the peer to read before the connection is closed (protocol/PROTOCOL.md §10):
    /// 60 s, `ServerConfiguration.writeTimeout`'s default.
    static let writeTimeout: Duration = .seconds(60)

    /// Serves the connection until the peer closes it, it fails, or `stop()` is called; then closes it.
    func run() async {
        if configuration.logsConnections { log("connection \(connection.id) from \(connection.peer) opened") }
        let window = RequestWindow(size: configuration.maxPendingRequests)
        // The reader runs on the connection's event loop, as the writer does (`Server.run()`).
        let task = Task(executorPreference: connection.executor) { await self.readLoop(window: window) }
        let stopNow = reader.withLock { state -> Bool in
            state.task = task
            return state.stopRequested
        }
        if stopNow { task.cancel() }
        // On the event loop, as their timers are: nothing of a session runs on the global pool.
        let watchdog = configuration.idleTimeout.map { timeout in
            Task(executorPreference: connection.executor) { await self.watchIdle(timeout) }
        }
        let authDeadline = authGate.map { gate in
            Task(executorPreference: connection.executor) { await self.enforceAuthDeadline(gate) }
        }
        let ending = await writeLoop(window: window)
        watchdog?.cancel()
        authDeadline?.cancel()
        authGate?.ended(connection.id)
        feed.remove(connection.id)
        await task.value
        outbox.releaseMemory()
        await connection.closeGracefully(within: Self.closingLinger)
        if let ending, ending != Self.endingLoggedAlready {
            log.throttled(.closedForReason, "connection \(connection.id) from \(connection.peer) closed (\(ending))")
        } else if configuration.logsConnections {
            log("connection \(connection.id) closed")
        }
    }

    /// Stops reading new requests, as `stop()`, and sends `closing` with reason `shutdown` after the replies owed
    /// (protocol/PROTOCOL.md §3, §12): a watcher can tell a planned restart from a crash.
    func stopForShutdown() {
        // Logged once for all of them (`Server.shutdown()`); closed gracefully, as every connection at a shutdown.
        close(
            reason: "shutdown", message: "Closing: the server is shutting down", ending: Self.endingLoggedAlready,
            closesAtOnce: false)
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
        // One cancellation handler for the whole loop (`stop()` cancels this task), not one per read.
        await connection.coveringReadCancellation { await readRequests(window: window) }
    }

    /// Reads, frames and carries out requests until the peer stops sending, the session stops or reading fails.
    private nonisolated(nonsending) func readRequests(window: RequestWindow) async {
        var context = ReaderContext(authenticated: tokenCheck == nil)
        // Before `auth`, lines are short (protocol/PROTOCOL.md §12): a peer without the token cannot make the server
        // buffer a megabyte, nor have a megabyte id echoed back in each refusal.
        var framer = LineFramer(
            maxLineBytes: context.authenticated ? configuration.maxLineBytes : min(configuration.maxLineBytes, Self.unauthenticatedMaxLineBytes),
            answersTelnet: true)
        // What the framer's unfinished line has charged to the server's memory account.
        var framerCharge = 0
        defer { memory?.refund(framerCharge) }
        var handledThisTurn = 0
        var events: [LineFramer.Event] = []
        while !Task.isCancelled, context.keepReading {
            // Emptied before the wait, not after: a line is a slice of its read's array, and an idle connection must
            // not keep its last read (up to 64 KiB) alive. One array serves every read; a large one left by a burst
            // of pipelined lines is not kept.
            if events.capacity > Self.keptEventCapacity { events = [] } else { events.removeAll(keepingCapacity: true) }
            let bytes: [UInt8]
            do {
                bytes = try await connection.read(maxBytes: configuration.readChunkBytes)
            } catch {
                return
            }
            // Only `watchIdle` reads it, and only with an idle timeout: spare every read a clock read otherwise.
            if configuration.idleTimeout != nil { lastActivity.withLock { $0 = .now } }
            let atEnd = bytes.isEmpty
            // The last line may lack its LF; it is still answered, then the session ends.
            if atEnd { events = framer.finish() } else { framer.push(bytes, into: &events) }
            if let memory {
                let buffered = framer.bufferedByteCount
                // The connection that asks for more while the server is at its ceiling is the one closed.
                if buffered > framerCharge {
                    guard memory.charge(buffered - framerCharge) else {
                        closeForMemory(memory)
                        return
                    }
                } else if buffered < framerCharge {
                    memory.refund(framerCharge - buffered)
                }
                // Recorded before anything can end the session: the deferred refund gives back all of it.
                framerCharge = buffered
                if memory.isFull {
                    closeForMemory(memory)
                    return
                }
            }
            // Lines already read are still answered after stop(): only reading more stops.
            var index = 0
            while index < events.count {
                if !context.keepReading { return }
                // Nobody can read the answers any more: carrying out the rest of what the peer sent before it
                // vanished would only burn memory and CPU on replies that are thrown away (a cheap amplification:
                // a thousand `list` lines cost 56 KB to send).
                if outbox.writeFailure != nil { return }
                // One turn of the event loop serves each busy connection a slice, as Redis reads 16 KB per client
                // per turn: a peer that pipelined thousands of requests does not hold up everyone else's replies.
                if handledThisTurn >= Self.requestsPerTurn {
                    handledThisTurn = 0
                    await connection.executor.nextRound()
                }
                // Consecutive plain mutations go to the list in one actor call (pipelined clients).
                let run = mutationRun(events[index...], context: context, limit: window.size)
                if run.count > 1 {
                    await submitRun(run, window: window, context: &context)
                    index += run.count
                    handledThisTurn += run.count
                    continue
                }
                await window.acquire()
                await handle(events[index], context: &context, window: window)
                index += 1
                handledThisTurn += 1
            }
            if atEnd { return }
            if context.authenticated, framer.maxLineBytes < configuration.maxLineBytes { framer.maxLineBytes = configuration.maxLineBytes }
            // A full read means more is waiting, and the next read will not wait for readiness: without this a peer
            // that streams bytes (say, blank lines or one endless line) would keep the event loop to itself.
            if bytes.count == configuration.readChunkBytes {
                handledThisTurn = 0
                await connection.executor.nextRound()
            }
        }
    }

    /// The longest line a connection may send before it has authenticated, on a server with a token: an `auth`
    /// line with a long token fits many times over.
    static let unauthenticatedMaxLineBytes = 4096

    /// The most framed events whose room the reader keeps between reads (40 bytes each: 1,280 bytes at most).
    static let keptEventCapacity = 32

    /// The most requests a session carries out before letting the event loop serve other connections.
    static let requestsPerTurn = 256

    /// Runs the reply jobs in order and writes their lines, each after the notifications it must follow. After a
    /// write fails (the peer vanished) it keeps running the remaining jobs without writing, so every submitted
    /// request is still collected.
    /// - Returns: why the connection ended early, if it did.
    private func writeLoop(window: RequestWindow) async -> String? {
        var ending: String?
        // The ending of a `closing` line written like a reply (not closing at once), logged once the session ends.
        var gracefulEnding: String?
        while let next = await outbox.next() {
            var bytes: ArraySlice<UInt8>
            var held = 0
            switch next {
            case .notifications(let lines):
                bytes = lines[...]
            case .unsent(let rest):
                bytes = rest
                held = rest.count
            case .job(let job):
                let reply = await job()
                window.release()
                guard let reply else { continue }
                held = reply.held
                var notifications = outbox.takeNotifications(upTo: reply.revision)
                if notifications.isEmpty {
                    bytes = reply.line[...]
                } else {
                    notifications.append(contentsOf: reply.line)
                    bytes = notifications[...]
                }
            case .overflow:
                if ending == nil { await cutOffSlowConsumer() }
                ending = ending ?? Self.slowConsumerEnding(outbox.maxBytes)
                continue
            case .closing(let last):
                guard ending == nil else { continue }
                if last.closesAtOnce {
                    // Not lingering: the reader may still be reading this socket (closing gracefully reads too, and
                    // two reads at once on one socket stop the process); an idle client sent nothing to reset on.
                    await connection.sayLastLine(last.line, lingering: false)
                    ending = last.ending
                    continue
                }
                // Written like any reply; `run()` closes gracefully once the reader is done.
                bytes = last.line[...]
                gracefulEnding = last.ending
            }
            if ending == nil, !bytes.isEmpty {
                do {
                    try await connection.write(bytes, within: configuration.writeTimeout)
                } catch {
                    // A slow consumer's stuck write is ended by closing the socket: say why it was closed.
                    ending = outbox.hasOverflowed ? Self.slowConsumerEnding(outbox.maxBytes) : "\(error)"
                    // The first failure, the writer's or a direct write's, is the one the log gives.
                    outbox.recordWriteFailure(ending ?? "\(error)")
                    // Wakes the reader so the session ends.
                    connection.close()
                }
            }
            outbox.releaseReplyBytes(held)
        }
        return outbox.writeFailure ?? ending ?? gracefulEnding
    }

    /// The log's reason for cutting off a slow consumer.
    static func slowConsumerEnding(_ maxBytes: Int) -> String {
        "slow consumer: more than \(maxBytes) bytes of notifications queued"
    }

    /// Closes a connection that sent nothing for `timeout`, with a `closing` notification (`idle_timeout`).
    /// A watching connection is never idle: it is waiting for changes (as Redis spares its subscribers).
    private func watchIdle(_ timeout: Duration) async {
        while !Task.isCancelled {
            let deadline = lastActivity.withLock { $0 } + timeout
            if ContinuousClock.now < deadline {
                try? await connection.executor.sleep(until: deadline)
                continue
            }
            if feed.isWatching(connection.id) || !outbox.isIdle {
                lastActivity.withLock { $0 = .now }
                continue
            }
            outbox.close(
                with: ServerNotification.closing(reason: "idle_timeout", message: "Closing: nothing received for \(timeout)").line,
                ending: "idle for more than \(timeout)")
            stop()
            return
        }
    }

    /// Ends a connection that asked for memory (a read, or a reply: `refuseForMemory`) that the server's ceiling
    /// does not leave: the replies it is owed go out, then a `closing` notification (`memory_limit`, protocol/PROTOCOL.md §10), then it closes.
    /// Requests of its last read are not carried out.
    func closeForMemory(_ memory: MemoryAccount) {
        outbox.close(
            with: ServerNotification.closing(
                reason: "memory_limit",
                message: "Closing: the server holds as much memory for its connections as it may (\(memory.ceiling) bytes, --max-memory-bytes); try again later"
            ).line,
            ending: "memory limit: the server holds \(memory.heldBytes) of at most \(memory.ceiling) bytes for its peers",
            closesAtOnce: false)
    }

    /// Closes the connection with a `closing` notification (`auth_timeout`) if it has not authenticated within
    /// `--auth-timeout` of its accept (protocol/PROTOCOL.md §12).
    private func enforceAuthDeadline(_ gate: AuthGate) async {
        let timeout = configuration.authTimeout
        do { try await connection.executor.sleep(for: timeout) } catch { return }
        guard gate.isWaiting(connection.id) else { return }
        gate.log("connection \(connection.id) from \(connection.peer): no auth within \(timeout); closing", to: log)
        closeUnauthenticated(
            reason: "auth_timeout",
            message: "Closing: no successful auth within \(timeout); send {\"method\":\"auth\",\"params\":{\"token\":\"…\"}} first")
    }

    /// Closes a connection that has not authenticated (its deadline passed, or it made room for a newer one): with
    /// a `closing` notification when everything it was sent has gone out, else at once — a peer without the token
    /// that does not read what it is sent must not hold its connection (and the memory of the replies) for the
    /// write timeout. Logged by the caller.
    func closeUnauthenticated(reason: String, message: String) {
        guard outbox.isIdle else {
            stop()
            connection.close()
            return
        }
        close(reason: reason, message: message, ending: Self.endingLoggedAlready)
    }

    /// The ending of a connection whose closing was logged when it was decided (through `AuthGate.log`, which
    /// throttles what a flood of peers can cause): the session logs nothing more when it ends.
    static let endingLoggedAlready = "logged already"

    /// Sends a `closing` notification with `reason` and `message` after the replies owed, and closes the connection;
    /// `ending` is what the log says (`endingLoggedAlready`: nothing); `closesAtOnce` as in `Outbox.LastLine`.
    /// Reading stops at once.
    func close(reason: String, message: String, ending: String, closesAtOnce: Bool = true) {
        outbox.close(
            with: ServerNotification.closing(reason: reason, message: message).line, ending: ending, closesAtOnce: closesAtOnce)
        stop()
    }

    /// The longest a connection lingers after its last reply for the peer to take it (as long as shutdown lets
    /// sessions write what they owe, protocol/PROTOCOL.md §3).
    static let closingLinger: Duration = Server.drainTimeout

    /// Tells a slow consumer why it is cut off, if its socket takes the line within a second, then closes at once:
    /// not gracefully, because the session's reader may still be reading the socket (closing gracefully reads too,
    /// and two reads at once on one socket stop the process: found by a hostile-input run).
    private func cutOffSlowConsumer() async {
        feed.remove(connection.id)
        await connection.sayLastLine(ServerNotification.closing(
            reason: "slow_consumer",
            message: "Closing: you were sent changes faster than you read them (over \(outbox.maxBytes) bytes queued)"
        ).line, lingering: false)
    }
}
