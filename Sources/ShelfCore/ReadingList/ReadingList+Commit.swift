extension ReadingList {
    /// Hands `commit` (the change `ticket` asked for) to the store.
    /// - Returns: the store's result when it decided the commit inline; `nil` when it completes later, through
    ///   `completions`.
    func save(_ commit: StoreCommit, ticket: UInt64) -> Result<Void, StorageError>? {
        // Stores complete either every commit inline or every commit later, in order; with saves of the other kind
        // still outstanding, an inline result still takes the completion queue so the order holds.
        let inlineAllowed = entries.allSaved
        if inlineAllowed, let result = store.commitNow(commit) { return result }
        let handoff = CompletionHandoff(list: self, ticket: ticket, generation: commit.generation, inlineAllowed: inlineAllowed)
        store.enqueue(commit) { @Sendable result in handoff.storeCompleted(result) }
        return handoff.enqueueReturned()
    }

    /// Starts the task that hands the queued store completions to the actor, a group at a time, until none is
    /// left (`CompletionQueue`).
    ///
    /// A huge group commit is answered a slice at a time: after a full slice the next one is an ordinary actor
    /// call, which the list's executor runs in a later turn (on the event loop, after other connections had
    /// theirs) instead of stalling them all for one long publish.
    nonisolated func drainCompletions() {
        Task(executorPreference: completionExecutor) { [self] in
            var inPlace = true
            while let group = completions.take(limit: Self.completionsPerTurn) {
                // Already on the list's executor (shelfd's event loop): handled in this turn, without a hop.
                if !inPlace || !completeInPlace(group) { await complete(group) }
                inPlace = group.count < Self.completionsPerTurn
            }
        }
    }

    /// `complete(_:)` at once when the caller runs on the list's executor.
    /// - Returns: false, doing nothing, anywhere else.
    private nonisolated func completeInPlace(_ group: [Completion]) -> Bool {
        guard executor?.isIsolatingCurrentContext() == true else { return false }
        assumeIsolated { $0.complete(group) }
        return true
    }

    /// Handles store completions, in the order the store produced them, in one actor call: marks the saved ones and
    /// publishes them together (one pass over the front of `entries` per group, not per completion); a failure rolls
    /// back, which first publishes everything saved before it (`rollBack(_:)`).
    func complete(_ group: some Sequence<Completion>) {
        var marked = false
        for completion in group {
            switch mark(completion) {
            case .stale: continue
            case .saved: marked = true
            case .failed(let error):
                marked = false
                rollBack(error)
            }
        }
        if marked { publishSaved() }
    }

    /// Handles one store completion, in the order the store produced them.
    func complete(_ completion: Completion) {
        complete(CollectionOfOne(completion))
    }

    /// What one completion did to `entries`.
    private enum Marked {
        /// Its generation was rolled back, or its request already answered: nothing to do.
        case stale
        case saved
        case failed(StorageError)
    }

    private func mark(_ completion: Completion) -> Marked {
        // A completion for a rolled-back generation is stale: its request is (or will be) answered `storageFailed`.
        guard completion.generation == generation,
              let position = entries.position(of: completion.ticket)
        else { return .stale }
        switch completion.result {
        case .success:
            entries.markSaved(at: position)
            return .saved
        case .failure(let error):
            return .failed(error)
        }
    }

    /// Publishes and answers, from the front, every request whose change is saved.
    ///
    /// At most `answersPerTurn` at a time: one save can release a long run of requests queued behind it (say 160,000
    /// stale `expect`s from a pipelining flood), and answering them all in one turn would hold the event loop that
    /// long. The rest are answered in a later turn, from the front, so the order holds.
    private func publishSaved() {
        var done = takeAnswering()
        let published = publishSavedPrefix(limit: Self.answersPerTurn, into: &done)
        deliver(done)
        giveBackAnswering(done)
        if published == Self.answersPerTurn, !entries.isEmpty, entries.savedPrefix(limit: 1).count == 1 {
            publishSavedLater()
        }
        if entries.isEmpty { resumeIdleWaiters() }
    }

    /// The most requests `publishSaved()` answers in one turn.
    static let answersPerTurn = 4096

    /// Continues `publishSaved()` in a later turn of the actor's executor (once, however often it is asked).
    private func publishSavedLater() {
        guard !publishingLater else { return }
        publishingLater = true
        Task { self.publishSavedNow() }
    }

    private func publishSavedNow() {
        publishingLater = false
        publishSaved()
    }

    /// Publishes the changes of the saved entries at the front, at most `limit` (those a rollback has not published
    /// already), and moves those entries to `done`.
    /// - Returns: how many entries were moved.
    private func publishSavedPrefix(limit: Int, into done: inout [Entry]) -> Int {
        let saved = entries.savedPrefix(limit: limit)
        publishChanges(at: saved)
        // Taken after publishing: a subscriber may have asked for an answer meanwhile (`whenAnswered`).
        entries.removeFirst(saved.count, into: &done)
        return saved.count
    }

    /// Publishes the changes of the saved entries at `positions`, skipping those a rollback published already (an
    /// earlier rollback's saved front may still be waiting for its answers when another save fails).
    private func publishChanges(at positions: Range<Int>) {
        for position in positions where !entries[position].published {
            if case .success(let result) = entries[position].outcome, let change = result.change { publish(change) }
        }
    }

    /// Makes one saved change visible: to readers, to the history and to subscribers. `wasPending`: it is among the
    /// speculative changes (it was saved after other requests were decided on top of it).
    ///
    /// The history takes the change last, so it keeps this value rather than a copy: subscribers are not isolated to
    /// the list and cannot read the history while they run.
    func publish(_ change: consuming RevisionedChange, wasPending: Bool = true) {
        accepted.items.apply(change.change)
        accepted.revision = change.revision
        if wasPending { speculative.published(change) }
        for subscriber in subscribers.values { subscriber(change) }
        history.append(change)
    }

    /// A save failed: every request behind the saved front is to be answered `storageFailed` (its change is
    /// forgotten), and a new generation starts so that late completions of the old one are dropped.
    ///
    /// The changes saved before the failure are durable, so they are all published now: leaving any of them out
    /// (a run of refused requests can hold saved changes back past one turn's `answersPerTurn`) would leave the
    /// store a revision ahead of the list, and every later commit refused on its base. The answers, theirs and the
    /// failures, go out like any others, `answersPerTurn` per turn and in order, once the new generation has begun,
    /// so a receiver that submits builds on the rolled-back list, and a rollback behind a pipelining flood does not
    /// hold the event loop for the whole backlog.
    func rollBack(_ error: StorageError) {
        let saved = entries.savedPrefix()
        publishChanges(at: saved)
        entries.rollBack(keeping: saved, failing: .failure(.storageFailed(error)))
        generation += 1
        speculative.reset(to: accepted.revision)
        // Told before the answers go out, so a log shows the failure ahead of anything its clients do next.
        storageFailureHandler?(StorageFailure(error: error, revision: accepted.revision))
        publishSaved()
    }

    /// Answers requests already taken out of `entries`, each with its outcome. Receivers run last, once the list's
    /// state is whole again and every answer without a receiver is in `unclaimed`: a receiver may ask for another
    /// of these answers, or submit, and must find the list consistent.
    private func deliver(_ done: [Entry]) {
        for entry in done {
            if entry.receiver == nil { unclaimed[entry.ticket] = entry.outcome }
            if !settleWaiters.isEmpty, let waiters = settleWaiters.removeValue(forKey: entry.ticket) {
                for waiter in waiters { waiter.resume() }
            }
        }
        for entry in done { entry.receiver?.receive(entry.outcome, ticket: entry.ticket) }
    }

    /// The array `publishSaved()` takes answered entries into, with the room the last one left,
    /// so answering a group allocates nothing. Taken, not borrowed: a receiver may submit, and a change saved inline
    /// publishes again inside `deliver` (which then finds it empty and makes its own).
    private func takeAnswering() -> [Entry] {
        var taken: [Entry] = []
        swap(&taken, &answering)
        return taken
    }

    private func giveBackAnswering(_ used: consuming [Entry]) {
        used.removeAll(keepingCapacity: used.capacity <= Self.keptAnsweringCapacity)
        answering = used
    }

    /// The most entries `answering` keeps room for between groups.
    static let keptAnsweringCapacity = 1024

    private func resumeIdleWaiters() {
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
