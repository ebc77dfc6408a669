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
public actor Server {
    enum State {
        case idle
        case running(TCPListener)
        case draining
        case stopped
    }

    /// How long `shutdown()` lets sessions finish the replies they owe before closing them hard, in seconds.
    public static let drainTimeout: Duration = .seconds(4)

    private let list: ReadingList
    private var configuration: ServerConfiguration
    private let log: ServerLog
    private let runID: UUID
    private let feed = ChangeFeed()
    private let listCache = ListReplyCache()
    private var state = State.idle
    private var sessions: [UInt64: Session] = [:]
    private var runFinished = false
    /// Refused connections closing gracefully now (`maxLingeringRefusals`).
    private var lingeringRefusals = 0
    /// Failed `accept` calls (out of descriptors, say): logged at most once every 10 s.
    private var acceptFailures = LogThrottle(interval: .seconds(10))
    private var feedSubscription: UInt64?
    /// With a token: the unauthenticated budget, guess slowdown and their log throttle, shared with every session.
    private let authGate: AuthGate?
    private var runWaiters: [CheckedContinuation<Void, Never>] = []

    /// A server for `list`, configured by `configuration`, logging to `log`. Nothing listens until `start()`.
    /// - Parameter runID: the run id `hello` reports (protocol/PROTOCOL.md §5): random for every server, so a client
    ///   resuming a `watch` can tell that the server restarted and that a revision may name another list (a
    ///   `--store memory` server starts again from 0, §6). Tests fix it.
    public init(list: ReadingList, configuration: ServerConfiguration, log: ServerLog, runID: UUID = UUID.random()) {
        self.list = list
        self.configuration = configuration
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
        state = .running(listener)
        // Subscribed before the first connection is accepted, so no watcher can miss a change.
        let feed = self.feed
        feedSubscription = await list.subscribe { feed.publish($0) }
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
        await withDiscardingTaskGroup { group in
            while true {
                let connection: TCPConnection
                do {
                    connection = try await listener.accept()
                } catch SocketError.failed(let call, let code) {
                    // Out of descriptors or memory: back off instead of spinning; accepting resumes by itself. That
                    // can last, so at most one line every 10 s, not ten a second.
                    if let unlogged = acceptFailures.admit(now: .now) {
                        let more = unlogged > 0 ? " (\(ServerLog.count(unlogged, "more such failure")) since the last such line)" : ""
                        log("\(call)() failed: \(String(cString: strerror(code))) (errno \(code)); retrying every 100 ms\(more)")
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                } catch {
                    break
                }
                guard case .running = state else {
                    connection.close()
                    break
                }
                if sessions.count >= configuration.maxConnections {
                    log("connection \(connection.id) from \(connection.peer) refused: \(ServerLog.count(sessions.count, "connection")) open")
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
                    group.addTask {
                        await connection.sayLastLine(line, lingering: true)
                        await self.refusalEnded()
                    }
                    continue
                }
                let session = Session(
                    connection: connection, list: list, feed: feed, listCache: listCache, configuration: configuration, log: log,
                    runID: runID, authGate: authGate)
                sessions[connection.id] = session
                if let evicted = authGate?.admit(connection.id), let oldest = sessions[evicted] {
                    authGate?.log(
                        "connection \(evicted) from \(oldest.connection.peer): closed to make room, \(configuration.maxUnauthenticated) connections waiting to authenticate",
                        to: log)
                    oldest.close(
                        reason: "too_many_unauthenticated",
                        message: "Closing: \(configuration.maxUnauthenticated) connections are waiting to authenticate and this one waited longest; authenticate right after connecting",
                        ending: Session.endingLoggedAlready)
                }
                // On the reactor's event loop: readiness resumes the session where epoll saw it.
                group.addTask(executorPreference: connection.executor) {
                    await session.run()
                    await self.remove(connection.id)
                }
            }
        }
        finishRun()
    }

    private func finishRun() {
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
        let deadline = Task { [weak self] in
            try? await Task.sleep(for: Self.drainTimeout)
            await self?.closeAll()
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

    private func refusalEnded() {
        lingeringRefusals -= 1
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
    }
}
