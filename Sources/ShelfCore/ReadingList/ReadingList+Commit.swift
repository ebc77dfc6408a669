extension ReadingList {
    /// Hands `commit` (the change `ticket` asked for) to the store.
    /// - Returns: the store's result when it decided the commit inline; `nil` when it completes later, through
    ///   `completions`.
    func save(_ commit: StoreCommit, ticket: UInt64) -> Result<Void, StorageError>? {
        // Stores complete either every commit inline or every commit later, in order; with saves of the other kind
        // still outstanding, an inline result still takes the completion queue so the order holds.
        let inlineAllowed = entries.allSaved
        if inlineAllowed, let result = store.commitNow(commit) { return result }
        let handoff = CompletionHandoff()
        let completions = self.completions
        // The store holds the list until it completes the commit, so a drain it starts always has its list (and a
        // store that never completed a commit would keep the list alive: stores complete every commit, ListStore).
        store.enqueue(commit) { @Sendable [self] result in
            if inlineAllowed, handoff.keepIfInline(result) { return }
            if completions.push(Completion(ticket: ticket, generation: commit.generation, result: result)) {
                drainCompletions()
            }
        }
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
                if inPlace { await completeHere(group) } else { await complete(group) }
                inPlace = group.count < Self.completionsPerTurn
            }
        }
    }

    /// Handles store completions, in the order the store produced them, in one actor call.
    func complete(_ group: [Completion]) {
        for completion in group { complete(completion) }
    }

    /// Handles one store completion, in the order the store produced them.
    func complete(_ completion: Completion) {
        // A completion for a rolled-back generation is stale: its request was already answered `storageFailed`.
        guard completion.generation == generation,
              let position = entries.position(of: completion.ticket)
        else { return }
        switch completion.result {
        case .success:
            entries.markSaved(at: position)
            publishSaved()
        case .failure(let error):
            rollBack(error)
        }
    }

    /// Publishes and answers, from the front, every request whose change is saved.
    ///
    /// At most `answersPerTurn` at a time: one save can release a long run of requests queued behind it (say 160,000
    /// stale `expect`s from a pipelining flood), and answering them all in one turn would hold the event loop that
    /// long. The rest are answered in a later turn, from the front, so the order holds.
    private func publishSaved() {
        let saved = entries.savedPrefix(limit: Self.answersPerTurn)
        for position in saved {
            if case .success(let result) = entries[position].outcome, let change = result.change { publish(change) }
        }
        // Taken after publishing: a subscriber may have asked for an answer meanwhile (`whenAnswered`).
        let done = entries.removeFirst(saved.count)
        deliver(done) { $0.outcome }
        if saved.count == Self.answersPerTurn, !entries.isEmpty, entries.savedPrefix(limit: 1).count == 1 {
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

    /// Makes one saved change visible: to readers, to the history and to subscribers. `wasPending`: it is among the
    /// speculative changes (it was saved after other requests were decided on top of it).
    func publish(_ change: RevisionedChange, wasPending: Bool = true) {
        accepted.items.apply(change.change)
        accepted.revision = change.revision
        history.append(change)
        if wasPending { speculative.published(change) }
        for subscriber in subscribers.values { subscriber(change) }
    }

    /// A save failed: forget every unanswered change, answer all waiting requests `storageFailed`, and start a new
    /// generation so that late completions of the old one are dropped.
    func rollBack(_ error: StorageError) {
        generation += 1
        speculative.reset(to: accepted.revision)
        let failed = entries.removeAll()
        deliver(failed) { _ in .failure(.storageFailed(error)) }
        resumeIdleWaiters()
    }

    /// Answers requests already taken out of `entries`. Receivers run last, once the list's state is whole again
    /// and every answer without a receiver is in `unclaimed`: a receiver may ask for another of these answers, or
    /// submit, and must find the list consistent.
    private func deliver(_ done: [Entry], _ outcome: (Entry) -> Outcome) {
        var receivers: [(@Sendable (Outcome) -> Void, Outcome)] = []
        for entry in done {
            if let receiver = entry.receiver {
                receivers.append((receiver, outcome(entry)))
            } else {
                unclaimed[entry.ticket] = outcome(entry)
            }
            for waiter in settleWaiters.removeValue(forKey: entry.ticket) ?? [] { waiter.resume() }
        }
        for (receiver, outcome) in receivers { receiver(outcome) }
    }

    private func resumeIdleWaiters() {
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
