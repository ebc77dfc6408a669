import ShelfCore
import Synchronization

/// What a session owes its peer, in the order it must be written (shared/design.md, invariant 7;
/// protocol/PROTOCOL.md, "Ordering"): reply jobs in request order, and `changed` notifications in revision order.
///
/// The writer takes a reply job, runs it, then writes every queued notification up to the reply's revision and
/// the reply itself, so nothing sent goes back in revision. With no job waiting it writes the queued
/// notifications. Queued notification bytes are bounded (`maxBytes`): past it the outbox overflows — the
/// queue is dropped and the session must close as a slow consumer.
final class Outbox: Sendable {
    /// A reply line and the list revision it carries, if any.
    struct Reply: Sendable {
        var line: [UInt8]
        var revision: Revision?
        /// Bytes this reply holds of the reply budget (`holdReplyBytes`), given back once it is written.
        var held: Int
    }

    /// Produces one reply, or `nil` when nothing is to be sent (notifications).
    typealias Job = @Sendable () async -> Reply?

    /// What the writer should do next.
    enum Next {
        case job(Job)
        case notifications([UInt8])
        /// The rest of a direct write the socket did not take at once: goes out before anything else. Its bytes
        /// are held against the reply budget; release them once written.
        case unsent(ArraySlice<UInt8>)
        /// Notifications overflowed `maxBytes`: say `closing` and close.
        case overflow
        /// The session is being closed on the server's side (idle timeout, authentication deadline, shutdown):
        /// write this last line, then close.
        case closing(LastLine)
    }

    /// The `closing` notification a session sends on its own as its last line (protocol/PROTOCOL.md §12).
    struct LastLine: Sendable {
        /// The notification, with its LF.
        var line: [UInt8]
        /// Why the connection ended, for the log (`Session.endingLoggedAlready`: nothing more), when the line closes
        /// it at once; after a graceful one the connection's end is logged as any other.
        var ending: String
        /// Whether the connection is closed right after the line (an idle timeout), or as every ending closes it,
        /// gracefully, once the reader is done (a shutdown: the peer may have sent more since, and closing with it
        /// unread would reset the connection and lose the replies still in flight).
        var closesAtOnce: Bool
    }

    private struct State {
        var jobs: [Job] = []
        var jobHead = 0
        var notes: [(revision: Revision, line: [UInt8])] = []
        var noteBytes = 0
        /// The revision of the last notification queued (0 before any): every change up to it that this connection
        /// watched for was handed to it, by a live watch or a backlog.
        var lastNotifiedRevision: Revision = 0
        var finished = false
        var overflowed = false
        var overflowReported = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Bytes of encoded replies not yet written, and the reader waiting for them to drop below `maxBytes`.
        var replyBytes = 0
        var roomWaiter: CheckedContinuation<Void, Never>?
        /// A last line to send before closing, once everything owed is written.
        var closingLine: LastLine?
        /// The writer holds something it took from `next()` and has not asked for more yet.
        var writerBusy = false
        /// A direct write is under way (`beginDirectWrite`, or notifications claimed by `notify`): the writer takes
        /// nothing meanwhile.
        var directWrite = false
        /// What a direct write left unsent; the writer sends it first.
        var unsent: ArraySlice<UInt8> = []
        /// Why a direct write failed, if one did.
        var writeFailure: String?
        /// Bytes of replies and notifications charged to the server's `MemoryAccount` and not yet refunded.
        var charged = 0
        /// Set once `releaseMemory()` refunded everything: nothing is charged after it.
        var accountClosed = false

        /// Charges (or, negative, refunds) `delta` bytes already taken to `memory`, whatever its ceiling.
        mutating func account(_ delta: Int, to memory: MemoryAccount?) {
            guard let memory, !accountClosed, delta != 0 else { return }
            if delta > 0 { memory.force(delta) } else { memory.refund(-delta) }
            charged += delta
        }

        /// Charges `bytes` to `memory`, `precharged` of which were charged already when the reply was made
        /// (`Session.Encoded.charged`) and are taken over here; the rest within the ceiling when `refusable`,
        /// whatever it when not (a change's reply: the change is made, so its reply must go out).
        /// - Returns: false, charging nothing and giving back `precharged`, when the ceiling does not allow it.
        mutating func charge(_ bytes: Int, precharged: Int = 0, to memory: MemoryAccount?, refusable: Bool = true) -> Bool {
            guard let memory else { return true }
            guard !accountClosed else {
                memory.refund(precharged)
                return true
            }
            let more = bytes - precharged
            if more < 0 {
                memory.refund(-more)
            } else if refusable {
                guard memory.charge(more) else {
                    memory.refund(precharged)
                    return false
                }
            } else {
                memory.force(more)
            }
            charged += bytes
            return true
        }

        /// Whether `next()` has something to hand out.
        var hasWork: Bool {
            !directWrite
                && (!unsent.isEmpty || jobHead < jobs.count || !notes.isEmpty || finished
                    || (overflowed && !overflowReported))
        }

        /// Whether a direct write may start now: nothing queued or being written could be overtaken.
        var writerIsBypassable: Bool {
            !directWrite && !writerBusy && unsent.isEmpty && jobHead == jobs.count && !finished && !overflowed
                && closingLine == nil
        }
    }

    private let state = Mutex(State())
    /// The most notification bytes queued before the session is cut off.
    let maxBytes: Int
    /// The server-wide account the queued bytes are charged to (`--max-memory-bytes`); nil charges nothing.
    let memory: MemoryAccount?

    init(maxBytes: Int, memory: MemoryAccount? = nil) {
        self.maxBytes = maxBytes
        self.memory = memory
    }

    /// Refunds what this outbox still has charged to `memory`, and charges nothing after: the session has ended.
    func releaseMemory() {
        state.withLock { state in
            memory?.refund(state.charged)
            state.charged = 0
            state.accountClosed = true
        }
    }

    /// Queues a reply job (the reader, in request order).
    func push(_ job: @escaping Job) {
        wake { $0.jobs.append(job) }
    }

    /// No more jobs will come.
    func finish() {
        wake { $0.finished = true }
    }

    /// Counts `count` bytes of an encoded reply against the budget, first waiting (the reader) until they fit within
    /// `maxBytes` with what is held, or nothing else is held (one reply larger than the budget is allowed alone), and
    /// charges them to the server's memory account within its ceiling (a checked charge costs what a forced one did:
    /// one atomic operation).
    /// - Parameters:
    ///   - alreadyHeld: bytes the same reply holds already (its id, `Session.heldIDBytes`): they do not count as
    ///     something else held, or a reply whose id alone passes the budget would wait for itself for ever.
    ///   - precharged: bytes of it charged to the memory account when it was made (`Session.Encoded.charged`),
    ///     taken over here.
    ///   - refusable: false for a reply that must go out whatever the ceiling (a batch that made changes).
    /// - Returns: false, holding and charging nothing (`precharged` is given back), when the memory ceiling refuses
    ///   the bytes: the reply must be dropped and the session closed (`memory_limit`, protocol/PROTOCOL.md §10).
    nonisolated(nonsending) func holdReplyBytes(
        _ count: Int, alreadyHeld: Int = 0, precharged: Int = 0, refusable: Bool = true
    ) async -> Bool {
        func admits(_ state: State) -> Bool {
            state.replyBytes - alreadyHeld == 0 || state.replyBytes + count <= maxBytes
        }
        while true {
            let admitted = state.withLock { state -> Bool? in
                guard admits(state) else { return nil }
                guard state.charge(count, precharged: precharged, to: memory, refusable: refusable) else { return false }
                state.replyBytes += count
                return true
            }
            if let admitted { return admitted }
            await withCheckedContinuation { continuation in
                let retry = state.withLock { state -> Bool in
                    if admits(state) { return true }
                    state.roomWaiter = continuation
                    return false
                }
                if retry { continuation.resume() }
            }
        }
    }

    /// Waits (the reader) while replies hold more than `maxBytes`, before carrying out a request: a read's reply is
    /// encoded as it is carried out, so waiting only afterwards, in `holdReplyBytes`, would hold that reply too
    /// (two replies of a 10 MB `list` per connection that does not read, not one).
    nonisolated(nonsending) func waitForRoom() async {
        // Nothing is charged, so nothing can be refused.
        _ = await holdReplyBytes(0)
    }

    /// Gives back bytes held by a written (or dropped) reply.
    func releaseReplyBytes(_ count: Int) {
        guard count > 0 else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.replyBytes -= count
            state.account(-count, to: memory)
            defer { state.roomWaiter = nil }
            return state.roomWaiter
        }
        waiter?.resume()
    }

    /// The revision of the last notification queued for this connection (0 before any): a backlog that starts
    /// below it would send a change twice (protocol/PROTOCOL.md §6).
    var lastNotifiedRevision: Revision {
        state.withLock { $0.lastNotifiedRevision }
    }

    /// How many more bytes of backlog may be queued now (`queueBacklog`): up to half of `maxBytes` in all, so that
    /// the changes made while a backlog goes out still have room (a backlog that filled the queue would have the
    /// next change cut the connection off as a slow consumer, and the backlog lost).
    var backlogRoom: Int {
        state.withLock { $0.overflowed ? 0 : max(0, maxBytes / 2 - $0.noteBytes) }
    }

    /// Queues a watch's backlog behind the notifications already queued (all at or below its first revision, when
    /// it starts after `lastNotifiedRevision`), so that every reply after it goes out after it and in revision order.
    /// Wakes nobody: the `watch` reply, queued or written directly, takes them with it.
    /// - Returns: false, queuing nothing, when the queue would then pass half of `maxBytes` (`backlogRoom`), or has
    ///   overflowed.
    func queueBacklog(_ lines: [(revision: Revision, line: [UInt8])]) -> Bool {
        state.withLock { state in
            let bytes = lines.reduce(0) { $0 + $1.line.count }
            guard !state.overflowed, state.noteBytes + bytes <= maxBytes / 2, state.charge(bytes, to: memory) else {
                return false
            }
            state.notes.append(contentsOf: lines)
            state.noteBytes += bytes
            if let last = lines.last { state.lastNotifiedRevision = max(state.lastNotifiedRevision, last.revision) }
            return true
        }
    }

    /// True when no reply job is queued or running and no notification waits.
    var isIdle: Bool {
        state.withLock {
            $0.jobHead == $0.jobs.count && $0.notes.isEmpty && $0.replyBytes == 0 && $0.unsent.isEmpty && !$0.directWrite
        }
    }

    /// Sends `line` after everything owed, then the session closes (the reader must stop too); `ending` is why, for
    /// the log; `closesAtOnce` as in `LastLine`. The first call wins.
    func close(with line: [UInt8], ending: String, closesAtOnce: Bool = true) {
        wake { $0.closingLine = $0.closingLine ?? LastLine(line: line, ending: ending, closesAtOnce: closesAtOnce) }
    }

    /// What became of a notification handed to `notify`.
    enum NotifyOutcome: Equatable {
        /// Queued for the writer (or for a direct write already under way).
        case queued
        /// Queued, and the caller now holds a direct write for it: send the queued notifications
        /// (`takeNotificationsForDirectWrite()`), then `endDirectWrite`. Spares the writer task a wake-up per change.
        case directWrite
        /// It overflowed the outbox: stop sending to it.
        case overflowed
    }

    /// Queues a notification line for `revision`.
    func notify(revision: Revision, line: [UInt8]) -> NotifyOutcome {
        let (outcome, waiter) = state.withLock { state -> (NotifyOutcome, CheckedContinuation<Void, Never>?) in
            guard !state.overflowed else { return (.overflowed, nil) }
            // Past its own budget, or past the server's memory ceiling: a watcher that cannot take more is cut off.
            if state.noteBytes + line.count > maxBytes || !state.charge(line.count, to: memory) {
                state.overflowed = true
                state.notes.removeAll()
                state.account(-state.noteBytes, to: memory)
                state.noteBytes = 0
                defer { state.waiter = nil }
                return (.overflowed, state.waiter)
            }
            state.notes.append((revision, line))
            state.noteBytes += line.count
            state.lastNotifiedRevision = max(state.lastNotifiedRevision, revision)
            if state.directWrite { return (.queued, nil) }
            if state.writerIsBypassable {
                state.directWrite = true
                return (.directWrite, nil)
            }
            defer { state.waiter = nil }
            return (.queued, state.waiter)
        }
        waiter?.resume()
        return outcome
    }

    /// Removes and returns every queued notification, concatenated, for a direct write of them — none while a
    /// reply job is queued: the writer then sends each notification before or after that reply by revision.
    func takeNotificationsForDirectWrite() -> [UInt8] {
        state.withLock { state in
            guard state.jobHead == state.jobs.count else { return [] }
            return take(state.notes.count, from: &state)
        }
    }

    /// Removes and returns, concatenated, the queued notifications with revision up to `revision`; none for a
    /// reply that carries no revision (it must not pull later changes ahead of a later reply).
    func takeNotifications(upTo revision: Revision?) -> [UInt8] {
        guard let limit = revision else { return [] }
        return state.withLock { state in
            var count = 0
            while count < state.notes.count, state.notes[count].revision <= limit { count += 1 }
            return take(count, from: &state)
        }
    }

    /// Lets the reader write the reply to its current request itself, skipping the writer task: allowed when no
    /// reply job is queued and the writer is not writing (so nothing owed can be overtaken). Until
    /// `endDirectWrite` the writer takes nothing, so notifications wait (in revision order) behind that reply.
    /// - Returns: false when the reader must queue a reply job as usual.
    func beginDirectWrite() -> Bool {
        state.withLock { state in
            guard state.writerIsBypassable else { return false }
            state.directWrite = true
            return true
        }
    }

    /// Ends a direct write. `unsent` (what the socket did not take at once) is the first thing the writer sends,
    /// then `jobs`, ahead of jobs the reader queued during the direct write; the writer is woken only when it has
    /// something to do.
    /// - Parameter releasing: bytes `holdDirectWrite` held for this write, given back.
    func endDirectWrite(unsent: ArraySlice<UInt8> = [], releasing held: Int = 0, then jobs: [Job] = []) {
        let (waiter, roomWaiter) = state.withLock { state -> (CheckedContinuation<Void, Never>?, CheckedContinuation<Void, Never>?) in
            state.directWrite = false
            state.replyBytes -= held
            state.account(unsent.count - held, to: memory)
            let roomWaiter = held > 0 ? state.roomWaiter : nil
            if roomWaiter != nil { state.roomWaiter = nil }
            // Ahead of any job the reader queued meanwhile: those came after this write.
            // Kept as the slice it is: the rest of a large reply (a `list`) is not copied again. An empty one is not
            // kept at all: it would hold on to the whole reply it was cut from.
            state.unsent = unsent.isEmpty ? [] : unsent
            // Held against the reply budget until the writer has sent it (`Next.unsent`): the rest of a large
            // reply, uncounted, let the reader carry out and hold a second one.
            state.replyBytes += unsent.count
            state.jobs.insert(contentsOf: jobs, at: state.jobHead)
            guard state.hasWork, let waiter = state.waiter else { return (nil, roomWaiter) }
            state.waiter = nil
            return (waiter, roomWaiter)
        }
        waiter?.resume()
        roomWaiter?.resume()
    }

    /// Counts a direct write's `count` bytes against the reply budget, without waiting (the reply is made already),
    /// and charges them to the server's memory account; `endDirectWrite(releasing:)` gives them back.
    /// - Parameters:
    ///   - precharged: bytes of it charged to the memory account when it was made, taken over here.
    ///   - refusable: whether the memory ceiling may refuse them (a read's reply); a change's reply is charged
    ///     whatever the ceiling, since the change is made.
    /// - Returns: false, holding and charging nothing (`precharged` is given back), when the ceiling refuses them:
    ///   the caller drops the reply, ends the direct write and closes the session (`memory_limit`).
    func holdDirectWrite(_ count: Int, precharged: Int = 0, refusable: Bool = false) -> Bool {
        state.withLock { state in
            guard state.charge(count, precharged: precharged, to: memory, refusable: refusable) else { return false }
            state.replyBytes += count
            return true
        }
    }

    /// Remembers why a direct write failed (the first reason counts), for the session's closing log line.
    func recordWriteFailure(_ reason: String) {
        state.withLock { $0.writeFailure = $0.writeFailure ?? reason }
    }

    /// True once notifications overflowed `maxBytes` (the session is being cut off as a slow consumer).
    var hasOverflowed: Bool {
        state.withLock { $0.overflowed }
    }

    /// Why a direct write failed, if one did.
    var writeFailure: String? {
        state.withLock { $0.writeFailure }
    }

    /// The next thing to write; `nil` once the reader finished and every job is done.
    func next() async -> Next? {
        while true {
            let next: Next?? = state.withLock { state in
                let next = take(&state)
                // Busy from here until the writer asks again: a direct write must not overtake what it holds.
                state.writerBusy = next != nil
                return next
            }
            if let next { return next }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    let ready = state.hasWork
                    if !ready { state.waiter = continuation }
                    return ready
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// What `next()` hands out now, in priority order; `nil` when there is nothing (or a direct write is on).
    private func take(_ state: inout State) -> Next?? {
        if state.directWrite { return nil }
        if !state.unsent.isEmpty {
            defer { state.unsent = [] }
            return .some(.unsent(state.unsent))
        }
        if state.overflowed, !state.overflowReported {
            state.overflowReported = true
            return .some(.overflow)
        }
        if state.jobHead < state.jobs.count {
            let job = state.jobs[state.jobHead]
            state.jobHead += 1
            if state.jobHead > 64, state.jobHead * 2 > state.jobs.count {
                state.jobs.removeFirst(state.jobHead)
                state.jobHead = 0
            }
            return .some(.job(job))
        }
        if !state.notes.isEmpty { return .some(.notifications(take(state.notes.count, from: &state))) }
        if state.finished, let closing = state.closingLine {
            state.closingLine = nil
            return .some(.closing(closing))
        }
        if state.finished { return .some(nil) }
        return nil
    }

    private func take(_ count: Int, from state: inout State) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(state.notes[..<count].reduce(0) { $0 + $1.line.count })
        for note in state.notes[..<count] { bytes.append(contentsOf: note.line) }
        state.notes.removeFirst(count)
        state.noteBytes -= bytes.count
        state.account(-bytes.count, to: memory)
        return bytes
    }

    private func wake(_ change: (inout State) -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            change(&state)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
