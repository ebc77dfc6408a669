import Foundation
import Glibc
import ShelfCore
import ShelfJSON
import ShelfSockets
import ShelfWire

/// The TCP server: accepts connections and runs one `Session` per connection, all sharing one `ReadingList`.
///
/// Life cycle: `start()` binds (so the caller can print the real port), `run()` serves until `shutdown()`.
/// `shutdown()` may be called more than once and from any task.
///
/// The server runs on the event loop (`Reactor.shared`), as its sessions do, and its timers are the loop's: nothing
/// of it needs the global concurrency pool, whose Dispatch monitor aborts the process (SIGILL) when it cannot open a
/// file, which is what running out of descriptors means.
@ServingLoop public final class Server {
    enum State {
        case idle
        case running(TCPListener)
        case draining
        case stopped
    }

    /// How long `shutdown()` lets sessions finish the replies they owe before closing them hard, in seconds.
    public nonisolated static let drainTimeout: Duration = .seconds(4)

    private let list: ReadingList
    private var configuration: ServerConfiguration
    private let log: ServerLog
    private let runID: UUID
    private let feed = ChangeFeed()
    private let listCache = ListReplyCache()
    private var state = State.idle
    private(set) var sessions: [UInt64: Session] = [:]
    private var runFinished = false
    /// Refused connections closing gracefully now (`maxLingeringRefusals`).
    private var lingeringRefusals = 0
    /// Failed `accept` calls (out of descriptors, say): logged at most once every 10 s.
    private var acceptFailures = LogThrottle(interval: .seconds(10))
    /// `--max-connections` as asked; `configuration.maxConnections` is what the open-file limit allows of it.
    private var wantedConnections: Int
    /// A descriptor held open to be given up when `accept` fails for want of one (`refuseWithReserve`).
    private var reserve = ReserveDescriptor()
    /// Memory held for all peers, against `--max-memory-bytes` (internal: tests read what it held).
    nonisolated let memory: MemoryAccount
    /// Gives freed connection memory back to the system (`malloc_trim`), at most once a second.
    private var trim = MemoryTrim()
    private var feedSubscription: UInt64?
    /// With a token: the unauthenticated budget, guess slowdown and their log throttle, shared with every session.
    private let authGate: AuthGate?
    private var runWaiters: [CheckedContinuation<Void, Never>] = []
    /// What the sessions' deadlines run on.
    private let clock: any ServerClock

    /// A server for `list`, configured by `configuration`, logging to `log`. Nothing listens until `start()`.
    /// - Parameter runID: the run id `hello` reports (protocol/PROTOCOL.md §5): random for every server, so a client
    ///   resuming a `watch` can tell that the server restarted and that a revision may name another list (a
    ///   `--store memory` server starts again from 0, §6). Tests fix it.
    /// - Parameter clock: what the connections' deadlines run on (the idle timeout, the write deadline, the
    ///   authentication deadline, the linger); the event loop's timers by default, a driven one in tests.
    public nonisolated init(
        list: ReadingList, configuration: ServerConfiguration, log: ServerLog, runID: UUID = UUID.random(),
        clock: any ServerClock = LoopClock()
    ) {
        self.clock = clock
        self.list = list
        self.configuration = configuration
        wantedConnections = configuration.maxConnections
        memory = MemoryAccount(ceiling: configuration.maxMemoryBytes)
        self.log = log
        self.runID = runID
        authGate = configuration.token == nil ? nil : AuthGate(configuration: configuration)
    }

    /// Binds and listens.
    /// - Returns: the address actually bound (the real port when port 0 was asked for).
    /// - Throws: `SocketError` (e.g. `.failed(call: "bind", errno: EADDRINUSE)`), or `ServerError.notIdle`.
    public func start() async throws -> HostPort {
        guard case .idle = state else { throw ServerError.notIdle }
        let budget = DescriptorBudget.connections(wanted: configuration.maxConnections)
        if budget.cap < configuration.maxConnections {
            log("serving at most \(ServerLog.count(budget.cap, "connection")), not \(configuration.maxConnections): the open-file limit is \(budget.limit) (raise it with ulimit -n)")
            configuration.maxConnections = budget.cap
        }
        let listener = try TCPListener.listen(on: configuration.listen)
        reserve.reopen()
        state = .running(listener)
        // Subscribed before the first connection is accepted, so no watcher can miss a change.
        let feed = self.feed
        feedSubscription = await list.subscribe { change in
            ServingLoop.run(feed, change) { feed, change in feed.publish(change) }
        }
        let failures = StorageFailureLog(log: log)
        await list.onStorageFailure { failures.record($0) }
        return listener.localAddress
    }

    /// Accepts connections until `shutdown()`; returns once every session has ended. Call after `start()`.
    public func run() async {
        guard case .running(let listener) = state else {
            // Never started, or shut down before running: there is nothing to serve.
            finishRun()
            return
        }
        // Isolated to the loop: everything it awaits (accept, the timers) resumes there, never on the global pool.
        await accept(from: listener)
        finishRun()
    }

    private func accept(from listener: TCPListener) async {
        await withDiscardingTaskGroup { group in
            while true {
                let connection: TCPConnection
                do {
                    connection = try await listener.accept()
                } catch SocketError.failed(let call, let code) {
                    if code == EMFILE || code == ENFILE {
                        // The limit may have been lowered under the running process (prlimit): serve fewer.
                        recheckDescriptorBudget()
                        switch refuseWithReserve(listener) {
                        case .refused:
                            continue
                        case .noneWaiting:
                            // Linux fails accept with EMFILE before it looks for a connection: wait for one (a
                            // closed listener ends the loop at the next accept).
                            try? await listener.waitForConnection()
                            continue
                        case .noReserve:
                            break
                        }
                    }
                    // Out of descriptors with no reserve to give (the process holds more than its limit now), or
                    // out of memory: back off instead of spinning; accepting resumes by itself. That can last, so
                    // at most one line every 10 s, not ten a second.
                    if let unlogged = acceptFailures.admit(now: .now) {
                        let more = unlogged > 0 ? " (\(ServerLog.count(unlogged, "more such failure")) since the last such line)" : ""
                        log("\(call)() failed: \(String(cString: strerror(code))) (errno \(code)); retrying every 100 ms\(more)")
                    }
                    try? await Reactor.shared.executor.sleep(for: Self.acceptBackoff)
                    continue
                } catch {
                    break
                }
                guard case .running = state else {
                    connection.close()
                    break
                }
                if sessions.count >= configuration.maxConnections {
                    recheckDescriptorBudget()
                }
                if sessions.count >= configuration.maxConnections {
                    log.throttled(.refused, "connection \(connection.id) from \(connection.peer) refused: \(ServerLog.count(sessions.count, "connection")) open")
                    // A refused connection holds a descriptor while it lingers, taken from the reserve the
                    // connection cap leaves free (`DescriptorBudget`): only a few may linger at once. The others are
                    // answered and closed right here, before the next accept, so a flood holds no descriptors.
                    let line = Self.refusalLine(limit: configuration.maxConnections)
                    guard lingeringRefusals < Self.maxLingeringRefusals else {
                        _ = try? connection.writeNow(line[...])
                        connection.close()
                        continue
                    }
                    lingeringRefusals += 1
                    group.addTask(executorPreference: Reactor.shared.executor) { await self.refuse(connection, saying: line) }
                    continue
                }
                let session = Session(
                    connection: connection, list: list, feed: feed, listCache: listCache, configuration: configuration, log: log,
                    runID: runID, authGate: authGate, memory: memory, clock: clock)
                sessions[connection.id] = session
                // A connection whose first request has arrived unread is spared: it may be `auth` with the token.
                if let authGate,
                   let evicted = authGate.admit(connection.id, evictable: { [sessions] id in (sessions[id]?.connection.unreadBytes ?? 0) == 0 }),
                   let oldest = sessions[evicted] {
                    authGate.log(
                        "connection \(evicted) from \(oldest.connection.peer): closed to make room, \(configuration.maxUnauthenticated) connections waiting to authenticate",
                        to: log)
                    oldest.closeUnauthenticated(
                        reason: "too_many_unauthenticated",
                        message: "Closing: \(configuration.maxUnauthenticated) connections are waiting to authenticate and this one, the longest with nothing unread, made room; authenticate right after connecting")
                }
                // Preferring the loop as its task executor too: the loop runs the list's jobs with that preference,
                // so the session's calls to the list (one serial executor) are then switched in place, not queued.
                group.addTask(executorPreference: Reactor.shared.executor) { await self.serve(session) }
            }
        }
    }

    /// How long accepting waits after a failure it cannot work around: 100 ms.
    static let acceptBackoff: Duration = .milliseconds(100)

    /// Re-reads the open-file limit, which can change under a running process, and caps the connections served
    /// by it again (`DescriptorBudget`); connections already served beyond a lowered cap stay served.
    private func recheckDescriptorBudget() {
        let budget = DescriptorBudget.connections(wanted: wantedConnections)
        guard budget.cap != configuration.maxConnections else { return }
        if budget.cap < configuration.maxConnections {
            log("serving at most \(budget.cap) connections, not \(wantedConnections): the open-file limit is now \(budget.limit) (raise it with ulimit -n)")
        } else {
            log("serving at most \(budget.cap) connections again: the open-file limit is now \(budget.limit)")
        }
        configuration.maxConnections = budget.cap
    }

    /// Out of descriptors: gives up the reserve for a moment to accept one waiting connection, tell it
    /// `too_many_connections` and close it, so waiting clients get an answer rather than a hang, and the loop waits
    /// for the next one instead of retrying a full backlog.
    private func refuseWithReserve(_ listener: TCPListener) -> ReserveRefusal {
        guard reserve.release() else {
            reserve.reopen()
            return .noReserve
        }
        defer { reserve.reopen() }
        guard let connection = try? listener.acceptNow() else { return .noneWaiting }
        log.throttled(.refused, "connection \(connection.id) from \(connection.peer) refused: out of file descriptors")
        _ = try? connection.writeNow(Self.refusalLine(limit: configuration.maxConnections)[...])
        connection.close()
        return .refused
    }

    /// What `refuseWithReserve` did.
    private enum ReserveRefusal {
        /// A waiting connection was answered and closed.
        case refused
        /// No connection was waiting.
        case noneWaiting
        /// There was no reserve to give up: the process holds more descriptors than its limit now.
        case noReserve
    }

    private func finishRun() {
        reserve.release()
        runFinished = true
        for waiter in runWaiters { waiter.resume() }
        runWaiters.removeAll()
    }

    /// Stops accepting, lets each session write the replies it owes (saves in flight finish) and then a `closing`
    /// notification with reason `shutdown` (protocol/PROTOCOL.md §3), closes every connection, and returns when
    /// the server has stopped. Idempotent.
    public func shutdown() async {
        switch state {
        case .idle:
            state = .stopped
            finishRun()
            return
        case .stopped, .draining:
            await waitForRun()
            return
        case .running(let listener):
            state = .draining
            listener.close()
        }
        log("shutting down: \(ServerLog.count(sessions.count, "connection")) open")
        for session in sessions.values { session.stopForShutdown() }
        let executor = Reactor.shared.executor
        let deadline = executor.schedule(after: Self.drainTimeout) { [weak self] in
            Task { @ServingLoop in self?.closeAll() }
        }
        await waitForRun()
        deadline.cancel()
        if let feedSubscription { await list.unsubscribe(feedSubscription) }
        await list.waitUntilIdle()
        state = .stopped
    }

    /// The line a connection over `--max-connections` gets before it is closed: one `too_many_connections` error
    /// with id `null` (protocol/PROTOCOL.md §8), with its LF.
    static func refusalLine(limit: Int) -> [UInt8] {
        let error = RPCError(.tooManyConnections, "Too many connections (the limit is \(limit)); try again later")
        var line = JSONWriter.encode(RPCResponse(id: .null, outcome: .failure(error)).json)
        line.append(0x0A)
        return line
    }

    /// The most refused connections that linger at once (a quarter of `DescriptorBudget.reserve`); refusals beyond
    /// them are written what the socket takes at once and closed, and a client that had sent a request may then see
    /// a reset, and perhaps not the line.
    static let maxLingeringRefusals = DescriptorBudget.reserve / 4

    /// Tells a refused connection why, if it takes the line within `Session.lastLineLimit`, then closes it
    /// gracefully, lingering as long again, so a client that had sent a request gets the line and then a clean end
    /// of stream (closing with its request unread resets the connection, and `nc` then often showed nothing).
    private func sayLastLine(_ line: [UInt8], to connection: TCPConnection) async {
        let closer = clock.schedule(after: Session.lastLineLimit + Session.lastLineLimit) { connection.close() }
        defer { closer.cancel() }
        if (try? connection.writeNow(line[...])) != line.count {
            // The line did not fit at once: a refused peer gets no more than the write that went through.
            connection.close()
            return
        }
        connection.shutdownWrite()
        while let bytes = try? await connection.read(), !bytes.isEmpty {}
        connection.close()
    }

    private func refuse(_ connection: TCPConnection, saying line: [UInt8]) async {
        await sayLastLine(line, to: connection)
        lingeringRefusals -= 1
    }

    private func serve(_ session: Session) async {
        await session.run()
        remove(session.connection.id)
    }

    private func waitForRun() async {
        if runFinished { return }
        await withCheckedContinuation { runWaiters.append($0) }
    }

    private func closeAll() {
        for session in sessions.values { session.connection.close() }
    }

    private func remove(_ id: UInt64) {
        sessions[id] = nil
        carryOut(trim.sessionEnded(memory: memory, now: .now))
    }

    /// Trims now, or sets a loop timer for a deferred trim (no task waits for it meanwhile).
    private func carryOut(_ decision: MemoryTrim.Decision) {
        switch decision {
        case .none:
            break
        case .trimNow:
            MemoryTrim.releaseFreedMemory()
        case .deferUntil(let due):
            let executor = Reactor.shared.executor
            _ = executor.schedule(after: max(.zero, due - .now)) { [weak self] in
                Task { @ServingLoop in self?.deferredTrimDue() }
            }
        }
    }

    private func deferredTrimDue() {
        carryOut(trim.deferredTrimDue(memory: memory, now: .now))
    }
}
