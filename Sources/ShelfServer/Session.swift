import Foundation
import ShelfCore
import ShelfSockets
import ShelfWire

/// One client connection, served on the event loop (`ServingLoop`): its reader frames lines, decodes each once and
/// carries the requests out in arrival order, appending one `ReplyQueue` slot per request; the list fills the slots
/// of saved changes (`receive`); once per loop round the session flushes, writing the front slots that are ready,
/// each after the notifications it must follow (shared/design.md, invariant 7; protocol/PROTOCOL.md, "Ordering").
/// The session is the socket's only writer; what the socket does not take waits for writability, with no task.
/// A session never throws: whatever the peer does ends, at worst, this session alone.
@ServingLoop final class Session {
    let connection: TCPConnection
    let list: ReadingList
    let feed: ChangeFeed
    let listCache: ListReplyCache
    let configuration: ServerConfiguration
    let log: ServerLog
    /// The server's run id, for `hello`.
    let runID: UUID
    /// The server-wide account of memory held for peers (`--max-memory-bytes`).
    let memory: MemoryAccount?
    /// Set when the server has a token: requests other than `hello`, `ping` and `auth` need `auth` first.
    let tokenCheck: TokenCheck?
    /// The server's authentication budget and guess slowdown; set exactly when `tokenCheck` is.
    let authGate: AuthGate?
    let clock: any ServerClock

    /// Whether `auth` succeeded (always true without a token).
    var authenticated: Bool
    /// Failed `auth` attempts so far; at `TokenCheck.maxFailures` the connection is closed.
    var failedAuthAttempts = 0
    /// The ticket of this connection's latest mutation still being saved, which the next read must wait for.
    var lastPendingTicket: UInt64?
    /// True once the reader must stop reading: the session is closing, or was told to stop. Requests already read
    /// are still carried out.
    private(set) var stopsReading = false
    /// True once nothing more the peer sent is carried out (too many failed `auth`s, the memory ceiling).
    var discardsRequests = false
    /// The watch being started, between the list's `register` and the reply (`watch(since:)`).
    var watchStart: WatchStart?
    private var reader: Task<Void, Never>?
    /// The reader, parked until the socket has something to read, a sleep ends, or the session stops reading.
    private var readWaiter: UnsafeContinuation<Void, Never>?
    /// Wakes `readWaiter` from the reactor thread: made once, so a wait allocates nothing.
    private var readableCallback: (@Sendable () -> Void)?
    /// The reader, parked until the window and the budget have room (`waitForRoom`).
    private(set) var roomWaiter: CheckedContinuation<Void, Never>?
    private var lastActivity: ContinuousClock.Instant

    var replies = ReplyQueue()
    var notifications: ChangeNotificationQueue
    private var budget: OutboundBudget
    /// Bytes handed to the socket that it has not taken yet: written first, when it can take more.
    private var unsent: ArraySlice<UInt8> = []
    /// The bytes of the buffer `unsent` is a slice of: held whole until its last byte is written, so counted whole
    /// (a 3 MB `list` reply the socket took 2.7 MB of still holds 3 MB).
    private var unsentBufferBytes = 0
    private var flushScheduled = false
    /// Mutations whose change is being saved, in submission order (the list answers them in that order), and where
    /// their answers go.
    var awaited: [AwaitedAnswer] = []
    private var awaitedHead = 0
    private(set) var phase = Phase.open
    /// `run()`, parked until everything owed is written (`isDrained`).
    private var drainWaiter: CheckedContinuation<Void, Never>?
    private var writeDeadline: (any ServerTimer)?
    private var idleTimer: (any ServerTimer)?
    /// The timer that ends the reader's `sleep(until:)`.
    private var sleepTimer: (any ServerTimer)?
    private var timers: [any ServerTimer] = []

    /// Where a connection is in its life; one value, so the flags that must agree cannot disagree.
    enum Phase {
        /// Serving.
        case open
        /// A last line goes out after everything owed, then the connection closes (`LastLine`); reading stopped.
        case closing(LastLine)
        /// A slow consumer: the queued notifications are dropped and the rest of the current write, then a
        /// `closing` line, goes out before the connection closes at once; nothing else is written.
        case cutOff(ending: String)
        /// Writing failed or timed out: the connection is closed and nothing more is written.
        case failed(ending: String)
    }

    /// The `closing` notification a session sends on its own as its last line (protocol/PROTOCOL.md §12).
    struct LastLine {
        /// The notification, with its LF.
        var line: [UInt8]
        /// Why the connection ended, for the log (`Session.endingLoggedAlready`: nothing more).
        var ending: String
        /// Whether the connection closes right after the line (an idle timeout), or gracefully, lingering for the
        /// peer's last requests (a shutdown: closing with them unread would reset the connection).
        var closesAtOnce: Bool
    }

    /// A mutation waiting for its save: its slot (and part, in a batch) and the id its reply carries.
    struct AwaitedAnswer {
        let ticket: UInt64
        let slot: ReplyQueue.Slot
        let part: Int?
        let id: RequestID?
    }

    init(
        connection: TCPConnection, list: ReadingList, feed: ChangeFeed, listCache: ListReplyCache,
        configuration: ServerConfiguration, log: ServerLog, runID: UUID, authGate: AuthGate? = nil,
        memory: MemoryAccount? = nil, clock: any ServerClock = LoopClock()
    ) {
        self.connection = connection
        self.list = list
        self.feed = feed
        self.listCache = listCache
        self.configuration = configuration
        self.log = log
        self.runID = runID
        self.memory = memory
        self.clock = clock
        notifications = ChangeNotificationQueue(maxBytes: configuration.maxOutboundBytes)
        budget = OutboundBudget(maxBytes: configuration.maxOutboundBytes)
        tokenCheck = configuration.token.map(TokenCheck.init(token:))
        self.authGate = tokenCheck == nil ? nil : authGate ?? AuthGate(configuration: configuration)
        authenticated = tokenCheck == nil
        lastActivity = clock.now
    }

    /// The longest a connection lingers after its last reply for the peer to take it (as long as shutdown lets
    /// sessions write what they owe, protocol/PROTOCOL.md §3).
    nonisolated static let closingLinger: Duration = .seconds(4)

    /// Serves the connection until the peer closes it, it fails, or it is stopped; then closes it.
    func run() async {
        if configuration.logsConnections { log("connection \(connection.id) from \(connection.peer) opened") }
        armTimers()
        // Preferring the loop as its task executor, as the loop runs actor jobs with it: whatever nonisolated code the
        // reader awaits stays on the loop (never the global pool).
        let reader = Task(executorPreference: connection.executor) { await self.readLoop() }
        self.reader = reader
        if stopsReading { reader.cancel() }
        await reader.value
        // Every request read is answered first; a watcher's own changes are then sent too.
        await untilDrained()
        feed.remove(connection.id)
        await untilDrained()
        // Timers hold the session: every one is cancelled here.
        for timer in timers { timer.cancel() }
        timers = []
        writeDeadline?.cancel()
        writeDeadline = nil
        idleTimer?.cancel()
        idleTimer = nil
        sleepTimer.take()?.cancel()
        authGate?.ended(connection.id)
        let ending: String?
        switch phase {
        case .open:
            ending = nil
            await linger()
        case .closing(let last):
            ending = last.ending
            // Closed at once when not lingering, as when the flush wrote the line; otherwise gracefully.
            if last.closesAtOnce { connection.close() } else { await linger() }
        case .cutOff(let why), .failed(let why):
            ending = why
            connection.close()
        }
        memory?.refund(budget.close())
        if let ending, ending != Self.endingLoggedAlready {
            log.throttled(.closedForReason, "connection \(connection.id) from \(connection.peer) closed (\(ending))")
        } else if configuration.logsConnections {
            log("connection \(connection.id) closed")
        }
    }

    /// Stops reading new requests; replies already owed are still written, then the connection closes.
    func stop() {
        stopsReading = true
        reader?.cancel()
        readWaiter.take()?.resume()
        wakeReader()
    }

    /// Stops reading, as `stop()`, and sends `closing` with reason `shutdown` after the replies owed
    /// (protocol/PROTOCOL.md §3, §12): a watcher can tell a planned restart from a crash.
    func stopForShutdown() {
        close(reason: "shutdown", message: "Closing: the server is shutting down", ending: Self.endingLoggedAlready, closesAtOnce: false)
    }

    /// Sends a `closing` notification with `reason` and `message` after the replies owed, and closes the connection;
    /// `ending` is what the log says (`endingLoggedAlready`: nothing). The first closing wins; reading stops at once.
    func close(reason: String, message: String, ending: String, closesAtOnce: Bool = true) {
        if case .open = phase {
            phase = .closing(LastLine(
                line: ServerNotification.closing(reason: reason, message: message).line, ending: ending,
                closesAtOnce: closesAtOnce))
            scheduleFlush()
        }
        stop()
    }

    /// The ending of a connection whose closing was logged when it was decided (through `AuthGate.log`, which
    /// throttles what a flood of peers can cause): the session logs nothing more when it ends.
    nonisolated static let endingLoggedAlready = "logged already"

    /// Closes a connection that has not authenticated (its deadline passed, or it made room for a newer one): with
    /// a `closing` notification when everything it was sent has gone out, else at once — a peer without the token
    /// that does not read what it is sent must not hold its connection for the write timeout. Logged by the caller.
    func closeUnauthenticated(reason: String, message: String) {
        guard isIdle else { return fail(Self.endingLoggedAlready) }
        close(reason: reason, message: message, ending: Self.endingLoggedAlready)
    }

    /// Ends a connection that asked for memory the server's ceiling does not leave: the replies it is owed go out,
    /// then `closing` (`memory_limit`, protocol/PROTOCOL.md §10), then it closes. Requests not yet carried out are
    /// not.
    func closeForMemory() {
        guard let memory else { return }
        close(
            reason: "memory_limit",
            message: "Closing: the server holds as much memory for its connections as it may (\(memory.ceiling) bytes, --max-memory-bytes); try again later",
            ending: "memory limit: the server holds \(memory.heldBytes) of at most \(memory.ceiling) bytes for its peers",
            closesAtOnce: false)
    }

    /// True when nothing is owed, queued or being written.
    var isIdle: Bool { replies.isEmpty && notifications.isEmpty && unsent.isEmpty }

    // MARK: The reader

    private func readLoop() async {
        // Strong: a weak reference would move every retain of the session to its side table; cleared below.
        readableCallback = { [self] in ServingLoop.run(self, ()) { session, _ in session.readWaiter.take()?.resume() } }
        await readRequests()
        readableCallback = nil
    }

    /// Parks the reader on the loop until `register` has `readWaiter` resumed. Made to resume where it parked, on
    /// the loop's executor: a continuation made for an isolation known only at run time resumes on the generic
    /// executor first and hops back, two queued jobs per read instead of one.
    private func park(_ register: (Session) -> Void) async {
        await _unsafeInheritExecutor_withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            readWaiter = continuation
            register(self)
        }
    }

    /// Reads what the socket has, waiting for it on the loop when it has nothing (no task parks in ShelfSockets),
    /// and not suspending when it has something.
    /// - Returns: the bytes, `[]` at end of stream, `nil` once the session stops reading or the read fails.
    private func read(waitingFirst: Bool) async -> [UInt8]? {
        if !waitingFirst, !stopsReading {
            switch readAvailable() {
            case .bytes(let bytes): return bytes
            case .failed: return nil
            case .none: break
            }
        }
        while !stopsReading, let callback = readableCallback {
            await park { session in
                if !session.connection.whenReadable(callback) { session.readWaiter.take()?.resume() }
            }
            if stopsReading { return nil }
            switch readAvailable() {
            case .bytes(let bytes): return bytes
            case .failed: return nil
            case .none: continue
            }
        }
        return nil
    }

    private enum ReadOutcome {
        case bytes([UInt8])
        case none
        case failed
    }

    private func readAvailable() -> ReadOutcome {
        do {
            guard let bytes = try connection.readNow(maxBytes: configuration.readChunkBytes) else { return .none }
            return .bytes(bytes)
        } catch {
            return .failed
        }
    }

    /// Lets the event loop serve other connections first: resumes in a later round, after the next epoll poll.
    private func nextRound() async {
        await park { session in
            let wake = session.readableCallback ?? {}
            if !session.connection.executor.afterRound(wake) { session.readWaiter.take()?.resume() }
        }
    }

    /// Parks the reader until `deadline` (by the server's clock), or until the session stops reading.
    /// - Returns: false when it stopped reading meanwhile.
    func sleep(until deadline: ContinuousClock.Instant) async -> Bool {
        // Again after an early wake (a readiness callback left from the last read shares the waiter).
        while !stopsReading, clock.now < deadline {
            await park { session in
                session.sleepTimer = session.clock.schedule(at: deadline) {
                    ServingLoop.run(session, ()) { session, _ in session.readWaiter.take()?.resume() }
                }
            }
            // Woken early or not, the timer goes: it holds the session until it fires (up to 8 s of guess spacing).
            sleepTimer.take()?.cancel()
        }
        return !stopsReading
    }

    /// Reads, frames and carries out requests until the peer stops sending, the session stops or reading fails.
    private func readRequests() async {
        // Before `auth`, lines are short (protocol/PROTOCOL.md §12): a peer without the token cannot make the server
        // buffer a megabyte, nor have a megabyte id echoed back in each refusal.
        var framer = LineFramer(
            maxLineBytes: authenticated ? configuration.maxLineBytes : min(configuration.maxLineBytes, Self.unauthenticatedMaxLineBytes),
            answersTelnet: true)
        // What the framer's unfinished line has charged to the server's memory account.
        var framerCharge = 0
        defer { memory?.refund(framerCharge) }
        var handledThisTurn = 0
        var events: [LineFramer.Event] = []
        var incoming: [Incoming] = []
        // After a short read the socket is drained: the next read waits for readiness first instead of spending a
        // system call on EAGAIN (edge-triggered epoll reports every arrival).
        var drained = false
        while !Task.isCancelled, !stopsReading, canServe {
            // Emptied before the wait: a line is a slice of its read's array, and an idle connection must not keep
            // its last read alive.
            if events.capacity > Self.keptEventCapacity { events = [] } else { events.removeAll(keepingCapacity: true) }
            guard let bytes = await read(waitingFirst: drained) else { return }
            drained = !bytes.isEmpty && bytes.count < configuration.readChunkBytes
            if configuration.idleTimeout != nil { lastActivity = clock.now }
            let atEnd = bytes.isEmpty
            // The last line may lack its LF; it is still answered, then the session ends.
            if atEnd { events = framer.finish() } else { framer.push(bytes, into: &events) }
            if let memory {
                let buffered = framer.bufferedByteCount
                // The connection that asks for more while the server is at its ceiling is the one closed.
                if buffered > framerCharge {
                    guard memory.charge(buffered - framerCharge) else {
                        closeForMemory()
                        return
                    }
                } else if buffered < framerCharge {
                    memory.refund(framerCharge - buffered)
                }
                // Recorded before anything can end the session: the deferred refund gives back all of it.
                framerCharge = buffered
                if memory.isFull {
                    closeForMemory()
                    return
                }
            }
            // Decoded once, here; lines already read are still answered after `stop()` unless the session closes.
            // Each event moved out, not copied: a copy retains the read's array, twice per line.
            for position in events.indices {
                var event = LineFramer.Event.tooLong(limit: 0)
                swap(&event, &events[position])
                incoming.append(Incoming(event))
            }
            events.removeAll(keepingCapacity: true)
            var index = 0
            while index < incoming.count, canServe {
                // One turn of the event loop serves each busy connection a slice, as Redis reads 16 KB per client
                // per turn: a peer that pipelined thousands of requests does not hold up everyone else's replies.
                if handledThisTurn >= Self.requestsPerTurn {
                    handledThisTurn = 0
                    await nextRound()
                }
                var handled = handleNow(&incoming, from: index)
                if handled == 0 { handled = await handle(incoming, from: index) }
                index += handled
                handledThisTurn += handled
            }
            // An idle connection keeps nothing of its last read.
            incoming.removeAll(keepingCapacity: incoming.capacity <= Self.keptEventCapacity)
            if atEnd { return }
            if authenticated, framer.maxLineBytes < configuration.maxLineBytes { framer.maxLineBytes = configuration.maxLineBytes }
            // A full read means more is waiting: without this a peer that streams bytes would keep the loop.
            if bytes.count == configuration.readChunkBytes {
                handledThisTurn = 0
                await nextRound()
            }
        }
    }

    /// One framed event, decoded.
    enum Incoming {
        /// A single request that is not a `mutation`: any other method, or a mutation with an id of 1 KiB or more.
        case request(Request)
        /// A single, plain mutation with a small id: it may go to the list with its neighbours (`submitRun`); a
        /// large id counts against the reply budget, which only the one-at-a-time path holds. Told apart, and made
        /// the list's request, when the line is decoded: finding a run reads no payload, and the mutation is not
        /// copied again on its way to the list.
        case mutation(ReadingList.Request, id: RequestID?)
        case batch([Request])
        case tooLong(Int)
        case telnetReply([UInt8])

        /// `.mutation` for a plain mutation with a small id, taken straight from the fast path's call; else
        /// `.request`.
        private static func single(_ element: consuming IncomingMessage.IncomingRequest) -> Incoming {
            switch consume element {
            case .call(let id, .mutate(let mutation, let expect, let expectItem)) where Session.heldIDBytes(id) == 0:
                return .mutation(ReadingList.Request(mutation, expect: expect, expectItem: expectItem), id: id)
            case let other:
                let request = Request(other)
                guard Session.heldIDBytes(request.id) == 0, let mutation = request.plainMutation else { return .request(request) }
                return .mutation(mutation, id: request.id)
            }
        }

        var isGroupableMutation: Bool {
            if case .mutation = self { return true }
            return false
        }

        init(_ event: consuming LineFramer.Event) {
            switch consume event {
            case .line(let bytes):
                switch IncomingMessage.decodeCall(line: bytes) {
                case .single(let element): self = Self.single(element)
                case .batch(let elements): self = .batch(elements.map(Request.init))
                }
            case .tooLong(let limit): self = .tooLong(limit)
            case .telnetReply(let bytes): self = .telnetReply(bytes)
            }
        }
    }

    /// The longest line a connection may send before it has authenticated, on a server with a token.
    nonisolated static let unauthenticatedMaxLineBytes = 4096

    /// The most framed events whose room the reader keeps between reads.
    nonisolated static let keptEventCapacity = 32

    /// The most requests a session carries out before letting the event loop serve other connections.
    nonisolated static let requestsPerTurn = 256

    /// Waits until `slots` more requests fit in the window (`ServerConfiguration.maxPendingRequests`, shared/design.md
    /// invariant 8) and the replies held fit in the budget (`OutboundBudget.admitsRequest`), or the reader must stop.
    func waitForRoom(slots: Int = 1) async {
        while canServe, !hasRoom(slots: slots) {
            await withCheckedContinuation { roomWaiter = $0 }
        }
    }

    /// Whether `slots` more requests fit in the window and the replies held fit in the budget now.
    func hasRoom(slots: Int) -> Bool {
        (replies.awaitingCount == 0 || replies.awaitingCount + slots <= configuration.maxPendingRequests)
            && budget.admitsRequest(holding: replies.heldBytes + unsentBufferBytes)
    }

    /// Whether requests read are still carried out: not once the session discards them, is cut off or failed.
    var canServe: Bool {
        switch phase {
        case .open, .closing: !discardsRequests
        case .cutOff, .failed: false
        }
    }

    /// Takes over bytes charged to the memory account as a reply was made (a large `list`).
    func adoptCharge(_ bytes: Int) {
        budget.adopt(bytes)
    }

    /// Queues a watch's encoded backlog (`ChangeNotificationQueue.insertBacklog`), charged to the memory account.
    func queueBacklog(_ lines: [(revision: Revision, line: [UInt8])]) -> Bool {
        // Within the server's memory ceiling, as a live change is (`queue`).
        let bytes = lines.reduce(0) { $0 + $1.line.count }
        guard memory?.charge(bytes) ?? true else { return false }
        guard notifications.insertBacklog(lines) else {
            memory?.refund(bytes)
            return false
        }
        budget.adopt(memory == nil ? 0 : bytes)
        return true
    }

    private func wakeReader() {
        roomWaiter.take()?.resume()
    }

    // MARK: Answers

    /// Fills `slot` (or its `part`) with `reply`; written at the end of the round.
    func fill(_ slot: ReplyQueue.Slot, part: Int? = nil, with reply: ReplyQueue.Reply) {
        if let part { replies.fill(slot, part: part, with: reply) } else { replies.fill(slot, with: reply) }
        scheduleFlush()
    }

    /// Fills `slot` with a submitted mutation's answer now when it has one, else once the list answers it.
    func answer(_ submission: Submission, id: RequestID?, slot: ReplyQueue.Slot, part: Int? = nil) async {
        switch submission {
        case .answered(let outcome):
            fill(slot, part: part, with: id.map { .mutation($0, outcome) } ?? .nothing)
        case .pending(let ticket):
            lastPendingTicket = ticket
            awaited.append(AwaitedAnswer(ticket: ticket, slot: slot, part: part, id: id))
            await list.wait(for: ticket, self)
        }
    }

    /// The list's answer to an awaited mutation: they come in submission order, so it is normally the first.
    fileprivate func answered(_ outcome: Result<MutationResult, ReadingListError>, ticket: UInt64) {
        guard let index = awaited[awaitedHead...].firstIndex(where: { $0.ticket == ticket }) else { return }
        let entry = awaited[index]
        if index == awaitedHead { awaitedHead += 1 } else { awaited.remove(at: index) }
        if awaitedHead == awaited.count {
            awaited.removeAll(keepingCapacity: true)
            awaitedHead = 0
        } else if awaitedHead > 64, awaitedHead * 2 > awaited.count {
            awaited.removeFirst(awaitedHead)
            awaitedHead = 0
        }
        fill(entry.slot, part: entry.part, with: entry.id.map { .mutation($0, outcome) } ?? .nothing)
    }

    // MARK: Notifications

    /// Queues a `changed` line for `revision`, written at the end of the round.
    /// - Returns: false when the connection cannot take it (past its budget or the server's memory ceiling): it is
    ///   cut off as a slow consumer, and must be sent nothing more.
    func notify(revision: Revision, line: [UInt8]) -> Bool {
        switch phase {
        case .open: return queue(revision: revision, line: line)
        // Changes made until the last line goes out are still sent; nothing after it.
        case .closing: return !lastLineSent && queue(revision: revision, line: line)
        case .cutOff, .failed: return false
        }
    }

    private func queue(revision: Revision, line: [UInt8]) -> Bool {
        let admitted = memory?.charge(line.count) ?? true
        guard notifications.append(revision: revision, line: line, admitted: admitted) else {
            if admitted { memory?.refund(line.count) }
            cutOff()
            return false
        }
        budget.adopt(memory == nil ? 0 : line.count)
        scheduleFlush()
        return true
    }

    /// Cuts off a slow consumer: tells it why after the rest of the current write, then closes at once.
    private func cutOff() {
        phase = .cutOff(ending: Self.slowConsumerEnding(configuration.maxOutboundBytes))
        feed.remove(connection.id)
        stop()
        scheduleFlush()
        // The peer may never take the line: it gets a second.
        let connection = self.connection
        timers.append(clock.schedule(after: Self.lastLineLimit) { connection.close() })
    }

    /// The log's reason for cutting off a slow consumer.
    nonisolated static func slowConsumerEnding(_ maxBytes: Int) -> String {
        "slow consumer: more than \(maxBytes) bytes of notifications queued"
    }

    /// How long a slow consumer's last line may wait for the peer: 1 s.
    nonisolated static let lastLineLimit: Duration = .seconds(1)

    // MARK: The flush point

    /// Flushes once the loop's current round is over, so the replies of one round leave together (as Redis writes
    /// its replies before it sleeps).
    func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        if !connection.executor.afterRound(FlushAtRoundEnd(session: self)) { flush() }
    }

    private struct FlushAtRoundEnd: RoundEndWork {
        let session: Session

        nonisolated func roundEnded() {
            ServingLoop.run(session, ()) { session, _ in session.flush() }
        }
    }

    /// Writes what is ready, in order, as far as the socket takes it; the rest waits for writability.
    func flush() {
        flushScheduled = false
        if case .failed = phase { return }
        var progressed = false
        while true {
            if unsent.isEmpty {
                var out: [UInt8] = []
                gather(into: &out)
                if out.isEmpty { break }
                unsent = out[...]
                unsentBufferBytes = out.count
            }
            let sent: Int
            do {
                sent = try connection.writeNow(unsent)
            } catch {
                fail("\(error)")
                return
            }
            unsent = sent == unsent.count ? [] : unsent.dropFirst(sent)
            if unsent.isEmpty { unsentBufferBytes = 0 }
            if sent > 0 { progressed = true }
            if !unsent.isEmpty {
                // The deadline is for a peer that reads nothing: one that takes some gets it again.
                if progressed {
                    writeDeadline?.cancel()
                    writeDeadline = nil
                }
                awaitWritable()
                break
            }
        }
        if unsent.isEmpty {
            writeDeadline?.cancel()
            writeDeadline = nil
            if case .cutOff = phase { connection.close() }
        }
        settleBudget()
        wakeReader()
        if isDrained { drainWaiter.take()?.resume() }
    }

    /// Appends to `out` what is ready to be written (`ReplyQueue.write`), then the last line when it is due. At most
    /// about `flushChunk` bytes, so a long pipeline is encoded only as fast as the socket takes it.
    private func gather(into out: inout [UInt8]) {
        if case .cutOff = phase {
            replies = ReplyQueue()
            notifications = ChangeNotificationQueue(maxBytes: 0)
            if !lastLineSent {
                lastLineSent = true
                out = ServerNotification.closing(
                    reason: "slow_consumer",
                    message: "Closing: you were sent changes faster than you read them (over \(configuration.maxOutboundBytes) bytes queued)"
                ).line
            }
            return
        }
        replies.write(into: &out, after: &notifications, upTo: Self.flushChunk)
        guard replies.isEmpty else { return }
        if readerEnded, case .closing(let last) = phase, !lastLineSent {
            lastLineSent = true
            out.append(contentsOf: last.line)
        }
    }

    /// About how many bytes one write gathers: 256 KiB.
    nonisolated static let flushChunk = 256 << 10

    /// Set once the reader has returned (every request read is in the queue).
    private(set) var readerEnded = false
    private var lastLineSent = false

    /// Waits for the socket to take more, with the write deadline running (`ServerConfiguration.writeTimeout`, 60 s;
    /// PROTOCOL.md §10).
    private func awaitWritable() {
        if writeDeadline == nil {
            let limit = configuration.writeTimeout
            writeDeadline = clock.schedule(after: limit) { [self] in
                ServingLoop.run(self, limit) { session, limit in session.fail(WriteTimedOut(limit: limit).description) }
            }
        }
        let retry = !connection.whenWritable { [self] in
            ServingLoop.run(self, ()) { session, _ in session.flush() }
        }
        if retry { scheduleFlush() }
    }

    private func fail(_ ending: String) {
        switch phase {
        case .failed: return
        case .cutOff(let why): phase = .failed(ending: why)
        default: phase = .failed(ending: ending)
        }
        unsent = []
        unsentBufferBytes = 0
        connection.close()
        stop()
        settleBudget()
        drainWaiter.take()?.resume()
    }

    private func settleBudget() {
        let delta = budget.update(replies: replies.heldBytes, unsent: unsentBufferBytes, notifications: notifications.bytes)
        guard let memory, delta != 0 else { return }
        if delta > 0 { memory.force(delta) } else { memory.refund(-delta) }
    }

    /// True when everything owed is written, or nothing more can be.
    private var isDrained: Bool {
        if case .failed = phase { return true }
        return readerEnded && isIdle && (lastLineSent || !isClosing)
    }

    private var isClosing: Bool {
        if case .closing = phase { return true }
        return false
    }

    private func untilDrained() async {
        readerEnded = true
        flush()
        while !isDrained {
            await withCheckedContinuation { drainWaiter = $0 }
        }
    }

    // MARK: Timers

    private func armTimers() {
        if let timeout = configuration.idleTimeout { armIdleTimer(at: lastActivity + timeout, timeout) }
        if let gate = authGate {
            let timeout = configuration.authTimeout
            timers.append(clock.schedule(after: timeout) { [self] in
                ServingLoop.run(self, gate) { session, gate in session.authDeadlinePassed(gate, timeout) }
            })
        }
    }

    /// Closes a connection that sent nothing for `timeout`, with a `closing` notification (`idle_timeout`).
    /// A watching connection is never idle: it is waiting for changes (as Redis spares its subscribers).
    private func armIdleTimer(at deadline: ContinuousClock.Instant, _ timeout: Duration) {
        idleTimer = clock.schedule(at: deadline) { [self] in
            ServingLoop.run(self, timeout) { session, timeout in session.idleTimerFired(timeout) }
        }
    }

    private func idleTimerFired(_ timeout: Duration) {
        let now = clock.now
        if now < lastActivity + timeout { return armIdleTimer(at: lastActivity + timeout, timeout) }
        if feed.isWatching(connection.id) || !isIdle {
            lastActivity = now
            return armIdleTimer(at: now + timeout, timeout)
        }
        close(reason: "idle_timeout", message: "Closing: nothing received for \(timeout)", ending: "idle for more than \(timeout)")
    }

    private func authDeadlinePassed(_ gate: AuthGate, _ timeout: Duration) {
        guard gate.isWaiting(connection.id) else { return }
        gate.log("connection \(connection.id) from \(connection.peer): no auth within \(timeout); closing", to: log)
        closeUnauthenticated(
            reason: "auth_timeout",
            message: "Closing: no successful auth within \(timeout); send {\"method\":\"auth\",\"params\":{\"token\":\"…\"}} first")
    }

    /// Sends FIN after what was written, then reads and drops what the peer still sends until the peer's TCP has
    /// acknowledged every byte sent (`unacknowledgedBytes`) or the peer has closed its side, for at most
    /// `closingLinger`; then closes. Closing with unread input makes the kernel reset the connection, and a reset
    /// throws away what the peer had not read yet.
    private func linger() async {
        connection.shutdownWrite()
        Self.closeWhenAcknowledged(connection, clock: clock, deadline: clock.now + Self.closingLinger)
        while let bytes = try? await connection.read(), !bytes.isEmpty {}
        connection.close()
    }

    /// Looks every `acknowledgementPoll` whether the peer has everything, and closes the connection then or at
    /// `deadline` (the FIN's acknowledgement wakes no read).
    private nonisolated static func closeWhenAcknowledged(_ connection: TCPConnection, clock: any ServerClock, deadline: ContinuousClock.Instant) {
        _ = clock.schedule(at: min(deadline, clock.now + acknowledgementPoll)) {
            guard let unacknowledged = connection.unacknowledgedBytes, unacknowledged != 0, clock.now < deadline else {
                return connection.close()
            }
            closeWhenAcknowledged(connection, clock: clock, deadline: deadline)
        }
    }

    /// How often a closing connection looks whether the peer has acknowledged everything sent: 10 ms.
    nonisolated static let acknowledgementPoll: Duration = .milliseconds(10)
}

extension Session: AnswerReceiver {
    nonisolated func receive(_ outcome: Result<MutationResult, ReadingListError>, ticket: UInt64) {
        ServingLoop.run(self, (outcome, ticket)) { session, answer in session.answered(answer.0, ticket: answer.1) }
    }
}

/// A write that waited `limit` for the peer to read was given up, and the connection closed (protocol/PROTOCOL.md
/// §10). Its description is the log's reason.
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
