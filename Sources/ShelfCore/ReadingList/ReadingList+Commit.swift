extension ReadingList {
    /// Handles store completions, in the order the store produced them, in one actor call.
    func complete(_ group: [Completion]) {
        for completion in group { complete(completion) }
    }

    /// Handles one store completion, in the order the store produced them.
    func complete(_ completion: Completion) {
        // A completion for a rolled-back generation is stale: its request was already answered `storageFailed`.
        guard completion.generation == generation,
              let index = entries.firstIndex(where: { $0.ticket == completion.ticket })
        else { return }
        switch completion.result {
        case .success:
            entries[index].saved = true
            publishSaved()
        case .failure(let error):
            rollBack(error)
        }
    }

    /// Publishes and answers, from the front, every request whose change is saved.
    private func publishSaved() {
        var answered = 0
        for entry in entries {
            guard entry.saved else { break }
            answered += 1
            if case .success(let result) = entry.outcome, let change = result.change { publish(change) }
            deliver(entry, entry.outcome)
        }
        entries.removeFirst(answered)
        if entries.isEmpty { resumeIdleWaiters() }
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
        let failed = entries
        entries.removeAll()
        for entry in failed { deliver(entry, .failure(.storageFailed(error))) }
        resumeIdleWaiters()
    }

    private func deliver(_ entry: Entry, _ outcome: Outcome) {
        if let receiver = entry.receiver {
            receiver(outcome)
        } else {
            unclaimed[entry.ticket] = outcome
        }
        for waiter in settleWaiters.removeValue(forKey: entry.ticket) ?? [] { waiter.resume() }
    }

    private func resumeIdleWaiters() {
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
