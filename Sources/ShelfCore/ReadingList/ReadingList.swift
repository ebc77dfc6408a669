import Foundation

/// The one shared list: owns the accepted state, the revision and the storage generation, and is the only way
/// to change the list (shared/design.md).
///
/// Mutations are validated in arrival order against the list as it will be once every change already handed to
/// the store is saved, given the next revision, and enqueued on the store at once, so several saves can be in
/// flight (and grouped by the store). A change is published — visible to `snapshot()`, `item(_:)` and
/// subscribers — only after the store accepted it, and replies come back in the order requests were validated.
/// When a save fails, the list rolls back to the accepted state and bumps its generation; every request decided on
/// top of the failed change answers `storageFailed`, and completions tagged with an older generation are dropped
/// (invariants 1, 2 and 4).
public actor ReadingList {
    typealias Outcome = Result<MutationResult, ReadingListError>

    /// One request waiting for its turn to be answered.
    struct Entry {
        let ticket: UInt64
        /// Replaced by `storageFailed` when a failed save rolls the entry back (`PendingRequests.rollBack`).
        var outcome: Outcome
        /// True once the store accepted the change, or from the start for a request that writes nothing, or once a
        /// rollback failed it: nothing is left to wait for but its turn to be answered.
        var saved: Bool
        /// Who takes the answer once it is known (`wait(for:_:)`); until then it is kept in `unclaimed`.
        var receiver: (any AnswerReceiver)?
        /// Its change is visible already, though its answer has not gone out: a rollback publishes every saved
        /// change at once and answers a turn at a time.
        var published = false
    }

    /// A store completion, delivered to the actor in the order the store produced them.
    struct Completion: Sendable {
        let ticket: UInt64
        let generation: UInt64
        let result: Result<Void, StorageError>
    }

    let store: any ListStore
    /// The identity of the stored list (`ListStore.loadStored()`): kept across restarts by a store that keeps the
    /// list, new at each start otherwise. `hello` reports it as `list` (protocol/PROTOCOL.md §5).
    public nonisolated let identity: UUID
    /// The executor the actor runs on, when not its own (`unownedExecutor`).
    let executor: (any SerialExecutor)?
    /// Where the task that hands a store's later completions to the actor runs (`drainCompletions()`).
    let completionExecutor: (any TaskExecutor)?
    /// Gives the actor a default actor's executor when `executor` is `nil`.
    private let ownExecutor = OwnExecutor()
    let now: @Sendable () -> Date
    let newID: @Sendable () -> UUID

    /// What readers see: only changes the store accepted.
    var accepted: ListSnapshot
    /// Every change handed to the store and not yet answered, over `accepted`: what new requests are checked against.
    var speculative: SpeculativeChanges
    /// Requests in validation order, answered from the front.
    var entries = PendingRequests()
    /// A later turn will answer more saved requests (`publishSavedLater`).
    var publishingLater = false
    /// Room for the entries one publish answers, kept between groups (`ReadingList+Commit.swift`).
    var answering: [Entry] = []
    /// Bumped by every rollback; store completions carry the generation their commit was started for.
    var generation: UInt64 = 0
    var nextTicket: UInt64 = 0
    /// Ids drawn from `newID` ahead of the adds that will take them, in order, from `upcomingHead` on
    /// (`ReadingList+UpcomingIDs.swift`).
    var upcomingIDs: [UUID] = []
    var upcomingHead = 0
    /// Whether an add has kept an id of its own since start (`ItemDetails.Origin`): only then may a drawn id be one
    /// an item has (with a generator that draws in sequence, as in tests), and only then is each drawn id looked up.
    var keptIDs = false
    /// Where the index reads made ahead of a run of adds are kept, so they are not optimised away.
    var touchedBuckets: UInt64 = 0
    /// Answers resolved before their session asked for them.
    var unclaimed: [UInt64: Outcome] = [:]
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Sessions waiting in `settle(_:)`, by ticket.
    var settleWaiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    var subscribers: [UInt64: @Sendable (RevisionedChange) -> Void] = [:]
    /// Told of every failed save (`onStorageFailure(_:)`).
    var storageFailureHandler: (@Sendable (StorageFailure) -> Void)?
    /// The most recent published changes, for watchers that resume from a revision.
    var history: ChangeHistory
    var nextSubscriber: UInt64 = 0
    let completions = CompletionQueue()

    /// Loads the list from `store`.
    /// - Parameters:
    ///   - now: the clock for `Item.addedAt` (injected so tests are exact).
    ///   - newID: the id generator for new items (injected so tests are exact).
    ///   - historyLimit: how many recent changes are kept for `watch(since:…)` (`shelfd --history`).
    ///   - historyBytes: how many bytes of them at most, by `ChangeHistory.estimatedBytes(of:)`
    ///     (`shelfd --history-bytes`); no limit by default.
    ///   - executor: where the actor runs (SE-0392); `nil` for a default actor. `shelfd` passes its event loop's
    ///     serial executor, so sessions isolated to that loop call the list without a hop (the runtime switches
    ///     in place between two actors of one serial executor).
    ///   - completionExecutor: where the tasks that hand a store's later completions to the list run (SE-0417
    ///     preference; one per burst of completions, `drainCompletions()`); `shelfd` passes its event loop, so a
    ///     save's answer reaches the waiting session without another thread.
    /// - Throws: `StorageError` from `store.load()`; nothing is written.
    public init(
        store: any ListStore,
        now: @escaping @Sendable () -> Date = { Date() },
        newID: @escaping @Sendable () -> UUID = { UUID.random() },
        historyLimit: Int = ReadingList.defaultHistoryLimit,
        historyBytes: Int = Int.max,
        executor: (any SerialExecutor)? = nil,
        completionExecutor: (any TaskExecutor)? = nil
    ) async throws(StorageError) {
        let loaded = try await store.loadStored()
        let snapshot = loaded.snapshot
        identity = loaded.identity
        self.executor = executor
        self.store = store
        self.now = now
        self.newID = newID
        accepted = snapshot
        speculative = SpeculativeChanges(revision: snapshot.revision)
        history = ChangeHistory(capacity: historyLimit, byteLimit: historyBytes, revision: snapshot.revision)
        self.completionExecutor = completionExecutor
    }

    /// `executor`, or a default actor's own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor?.asUnownedSerialExecutor() ?? ownExecutor.unownedExecutor
    }

    /// True when the calling thread runs the list's executor now (a task on `shelfd`'s event loop): code there may
    /// treat itself as isolated to the list.
    public nonisolated var isIsolatingCurrentContext: Bool {
        executor?.isIsolatingCurrentContext() == true
    }

    /// An actor with nothing in it, for its default executor (an actor may run on another's, SE-0392).
    private actor OwnExecutor {}

    /// The most store completions handled in one actor turn.
    static let completionsPerTurn = 256

    /// Changes kept for watchers by default.
    public static let defaultHistoryLimit = 10_000

    /// The accepted revision.
    public var revision: Revision { accepted.revision }

    /// The accepted list.
    public func snapshot() -> ListSnapshot { accepted }

    /// What a submitted request will be answered, as the list decided it: the answer itself when the submission
    /// carries it; for a pending one, the outcome it gets once its change is saved (a failed save answers
    /// `storageFailed` instead); `nil` once it has been answered. Takes nothing: `answer(_:)` still gives it.
    public func decidedOutcome(of submission: Submission) -> Result<MutationResult, ReadingListError>? {
        switch submission {
        case .answered(let outcome): return outcome
        case .pending(let ticket):
            if let outcome = unclaimed[ticket] { return outcome }
            return entries.position(of: ticket).map { entries[$0].outcome }
        }
    }

    /// The accepted item with `id`, and the revision it was read at.
    /// - Throws: `ReadingListError.notFound`.
    public func item(_ id: UUID) throws(ReadingListError) -> (item: Item, revision: Revision) {
        guard let item = accepted.items[id] else { throw .notFound(id) }
        return (item, accepted.revision)
    }

    /// One request of `submitAll(_:)`: a mutation, and the revisions it expects (`nil`: any).
    public struct Request: Sendable {
        /// The change asked for.
        public let mutation: Mutation
        /// When set, the change applies only if the list is exactly at this revision (else `.conflict`).
        public let expect: Revision?
        /// When set, the change applies only if its item is exactly at this revision (else `.conflict`).
        public let expectItem: Revision?

        /// A request for `mutation`, conditional on `expect` and `expectItem` when they are set.
        public init(_ mutation: Mutation, expect: Revision?, expectItem: Revision? = nil) {
            self.mutation = mutation
            self.expect = expect
            self.expectItem = expectItem
        }
    }

    /// Calls `receiver` with the answer to `submission` once it is known — at once for an answered one; for a
    /// pending one on the actor, when the list publishes it (or rolls it back). Each ticket is collected once (this,
    /// `wait(for:_:)` or `outcome(of:)`). `receiver` must not block. From the list's own executor (a subscriber, a
    /// receiver) it registers in place, so it sees the list as it is in that turn.
    public nonisolated func whenAnswered(
        _ submission: Submission, _ receiver: @escaping @Sendable (Result<MutationResult, ReadingListError>) -> Void
    ) {
        switch submission {
        case .answered(let outcome):
            receiver(outcome)
        case .pending(let ticket):
            let closure = ClosureReceiver(receiver)
            if executor?.isIsolatingCurrentContext() == true {
                assumeIsolated { $0.wait(for: ticket, closure) }
            } else {
                Task { await self.wait(for: ticket, closure) }
            }
        }
    }

    /// Validates `mutation`, saves it and publishes it, then answers: `submit(_:expect:)` then `answer(_:)`.
    /// - Parameters:
    ///   - expect: when set, the mutation applies only if the list is exactly at this revision.
    ///   - expectItem: when set, it applies only if the target item is exactly at this revision.
    /// - Returns: the new revision and item; for a request that changes nothing, the current ones (nothing written).
    /// - Throws: `ReadingListError` — `.invalidTitle`, `.invalidField`, `.notFound` and `.conflict` without writing
    ///   anything, `.storageFailed` when the store refused the change (the list and revision are then as they were).
    public func apply(
        _ mutation: Mutation, expect: Revision? = nil, expectItem: Revision? = nil
    ) async throws(ReadingListError) -> MutationResult {
        try await outcome(of: submit(mutation, expect: expect, expectItem: expectItem)).get()
    }

    /// The answer to a submission: the one it carries, or the one `answer(_:)` gives for its ticket (each ticket is
    /// collected once).
    public nonisolated(nonsending) func outcome(of submission: Submission) async -> Result<MutationResult, ReadingListError> {
        switch submission {
        case .answered(let outcome): outcome
        case .pending(let ticket): await answer(ticket)
        }
    }

    /// Validates `mutation` and, if it changes the list, hands the change to the store, without waiting for the
    /// save. Requests submitted one after another are decided and answered in that order, so a session can pipeline:
    /// submit in arrival order, then collect each answer with `outcome(of:)` or `wait(for:_:)`.
    public func submit(_ mutation: Mutation, expect: Revision? = nil, expectItem: Revision? = nil) -> Submission {
        let outcome = decide(mutation, expect: expect, expectItem: expectItem)
        // Answered at once only when the verdict cannot depend on changes still being saved: too many tags after
        // adding some can.
        switch outcome {
        case .failure(.invalidTitle): return .answered(outcome)
        case .failure(.invalidField(let problem)) where !problem.isTooManyTags: return .answered(outcome)
        default: break
        }
        var saved = true
        let ticket = nextTicket
        if case .success(let result) = outcome, let change = result.change {
            saved = false
            let commit = StoreCommit(generation: generation, base: change.revision - 1, change: change)
            let inlineResult = save(commit, ticket: ticket)
            nextTicket += 1
            if let inlineResult, entries.isEmpty {
                // Saved (or refused) inline with nothing ahead of it: publish or roll back and answer at once; it
                // never needs a place among the pending changes.
                switch inlineResult {
                case .success:
                    speculative.advance(to: change.revision)
                    publish(change, wasPending: false)
                    return .answered(outcome)
                case .failure(let error):
                    rollBack(error)
                    return .answered(.failure(.storageFailed(error)))
                }
            }
            speculative.add(change)
            entries.append(Entry(ticket: ticket, outcome: outcome, saved: saved, receiver: nil))
            if let result = inlineResult {
                complete(Completion(ticket: ticket, generation: commit.generation, result: result))
                // Saved and published already (nothing was ahead of it): answer now, saving the caller a hop.
                if let outcome = unclaimed.removeValue(forKey: ticket) { return .answered(outcome) }
            }
            return .pending(ticket: ticket)
        } else if entries.isEmpty {
            return .answered(outcome)
        }
        nextTicket += 1
        entries.append(Entry(ticket: ticket, outcome: outcome, saved: saved, receiver: nil))
        return .pending(ticket: ticket)
    }

    /// Submits several mutations in order in one call (what a pipelining session sends together); the same as
    /// calling `submit(_:expect:expectItem:)` for each.
    /// - Returns: one submission per request, in the same order.
    public func submitAll(_ requests: [Request]) -> [Submission] {
        // A loop, not `map`: a closure formed on the actor is entered through a run-time isolation check.
        var submissions: [Submission] = []
        submissions.reserveCapacity(requests.count)
        // By index, not `for request in requests`: that copies each request (its mutation's text retained).
        var adds = 0
        for index in requests.indices where requests[index].mutation.isAdd { adds += 1 }
        if adds > 1 { drawIDsAhead(adds) }
        for index in requests.indices {
            submissions.append(submit(requests[index].mutation, expect: requests[index].expect, expectItem: requests[index].expectItem))
        }
        return submissions
    }

    /// Waits for the answer to a submitted request: after its change (and every change submitted before it) is
    /// saved and published, or after a failed save rolled it back. Each ticket is answered once.
    public func answer(_ ticket: UInt64) async -> Result<MutationResult, ReadingListError> {
        if let outcome = unclaimed.removeValue(forKey: ticket) { return outcome }
        return await withCheckedContinuation { continuation in
            wait(for: ticket, ClosureReceiver { continuation.resume(returning: $0) })
        }
    }

    /// Hands the answer for `ticket` to `receiver` once it is known, on the actor (at once if it already is).
    /// `receiver` must not block: it runs while the list publishes.
    public func wait(for ticket: UInt64, _ receiver: any AnswerReceiver) {
        if let outcome = unclaimed.removeValue(forKey: ticket) {
            receiver.receive(outcome, ticket: ticket)
        } else if let position = entries.position(of: ticket), entries[position].receiver == nil {
            entries.setReceiver(receiver, at: position)
        } else {
            receiver.receive(.failure(.storageFailed(.injected("unknown ticket \(ticket)"))), ticket: ticket)
        }
    }

    /// Suspends until the request with `ticket` (and so every request submitted before it) has been answered,
    /// without taking its answer. A session uses it to run a read exactly after its own earlier writes.
    public func settle(_ ticket: UInt64) async {
        guard entries.contains(ticket: ticket) else { return }
        await withCheckedContinuation { settleWaiters[ticket, default: []].append($0) }
    }

    /// Suspends until no save is in flight (used when shutting down).
    public func waitUntilIdle() async {
        if entries.isEmpty { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }
}
