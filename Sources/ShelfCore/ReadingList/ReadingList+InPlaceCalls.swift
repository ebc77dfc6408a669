import Foundation

/// The calls sessions make on every request. Each runs on the actor at once, with no hop, when the caller already
/// runs on the list's executor (a session on the event loop `shelfd` gave the list); anywhere else it is an
/// ordinary actor call. Either way the caller sees the same answers in the same order.
extension ReadingList {
    /// Runs `body` isolated to the list at once when the caller runs on the list's executor; `nil` anywhere else.
    ///
    /// `body` gets what it needs as `argument` and should capture nothing, so no closure context is allocated.
    /// (`assumeIsolated` made two allocations per call, for `withoutActuallyEscaping` and a reabstraction thunk,
    /// and checked the executor a second time: 2 of the 10 allocations of a memory `add`.) Like `assumeIsolated`,
    /// it lets only `Sendable` values in and out.
    nonisolated func runHere<Argument: Sendable, T: Sendable>(
        _ argument: Argument, _ body: @escaping (isolated ReadingList, Argument) -> T
    ) -> T? {
        guard let executor, executor.isIsolatingCurrentContext() == true else { return nil }
        // Sound because of the check above: the list's executor is serial and the calling thread is running it now,
        // so nothing else runs on the actor until this returns; that is all `isolated` promises to a synchronous
        // `body`. The two function types differ only in that promise, not in how they are called: this is the cast
        // `assumeIsolated` itself makes.
        let onTheActor = unsafeBitCast(body, to: ((ReadingList, Argument) -> T).self)
        return onTheActor(self, argument)
    }

    /// The accepted list.
    public nonisolated(nonsending) func snapshot() async -> ListSnapshot {
        if let snapshot = runHere((), { list, _ in list.snapshotNow() }) { return snapshot }
        return await snapshotNow()
    }

    /// What a submitted request will be answered, as the list decided it: the answer itself when the submission
    /// carries it; for a pending one, the outcome it gets once its change is saved (a failed save answers
    /// `storageFailed` instead); `nil` once it has been answered. Takes nothing: `answer(_:)` still gives it.
    public nonisolated(nonsending) func decidedOutcome(of submission: Submission) async -> Result<MutationResult, ReadingListError>? {
        guard case .pending(let ticket) = submission else {
            if case .answered(let outcome) = submission { return outcome }
            return nil
        }
        if let here = runHere(ticket, { list, ticket in list.decidedOutcomeNow(ticket) }) { return here }
        return await decidedOutcomeNow(ticket)
    }

    /// The accepted item with `id`, and the revision it was read at.
    /// - Throws: `ReadingListError.notFound`.
    public nonisolated(nonsending) func item(_ id: UUID) async throws(ReadingListError) -> (item: Item, revision: Revision) {
        let read: Result<ItemRead, ReadingListError>
        if let here = runHere(id, { list, id in list.itemNow(id) }) { read = here } else { read = await itemNow(id) }
        let found = try read.get()
        return (found.item, found.revision)
    }

    /// Validates `mutation` and, if it changes the list, hands the change to the store, without waiting for the
    /// save. Requests submitted one after another are decided and answered in that order, so a session can pipeline:
    /// submit in arrival order, then collect each answer with `answer(_:)`.
    public nonisolated(nonsending) func submit(
        _ mutation: Mutation, expect: Revision? = nil, expectItem: Revision? = nil
    ) async -> Submission {
        if let submission = runHere((mutation, expect, expectItem), { list, request in
            list.submitNow(request.0, expect: request.1, expectItem: request.2)
        }) { return submission }
        return await submitNow(mutation, expect: expect, expectItem: expectItem)
    }

    /// Submits several mutations in order in one call (what a pipelining session sends together); the same as
    /// calling `submit(_:expect:)` for each.
    /// - Parameter requests: the mutations, in the order they arrived.
    /// - Returns: one submission per request, in the same order (collect each with `outcome(of:)`).
    public nonisolated(nonsending) func submitAll(_ requests: [Request]) async -> [Submission] {
        if let submissions = runHere(requests, { list, requests in list.submitAllNow(requests) }) { return submissions }
        return await submitAllNow(requests)
    }

    /// One request of `submitAll(_:)`: a mutation, and the revision it expects (`nil`: any).
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

    /// `answer(_:)`; on the list's executor the wait is registered in place, so the caller is resumed once, when
    /// the answer is known, instead of hopping to the actor and back.
    nonisolated(nonsending) func answerHere(_ ticket: UInt64) async -> Result<MutationResult, ReadingListError> {
        guard runHere((), { _, _ in () }) != nil else { return await answer(ticket) }
        return await withCheckedContinuation { continuation in
            // Still on the same thread, with no suspension since the check above.
            let receiver = ClosureReceiver { continuation.resume(returning: $0) }
            if runHere((ticket, receiver), { list, waiting in list.wait(for: waiting.0, waiting.1) }) == nil {
                continuation.resume(returning: .failure(.storageFailed(.injected("answer(\(ticket)) left the list's executor"))))
            }
        }
    }

    /// Calls `receiver` with the answer to `submission` once it is known — at once for an answered one; for a pending
    /// one on the actor, when the list publishes it (or rolls it back). Each ticket is collected once (this or
    /// `outcome(of:)`). `receiver` must not block. Lets a session write a saved change's reply without a task waiting.
    public nonisolated func whenAnswered(_ submission: Submission, _ receiver: any AnswerReceiver) {
        switch submission {
        case .answered(let outcome):
            receiver.receive(outcome)
        case .pending(let ticket):
            if runHere((ticket, receiver), { list, waiting in list.wait(for: waiting.0, waiting.1) }) == nil {
                Task { await self.wait(for: ticket, receiver) }
            }
        }
    }

    /// `whenAnswered(_:_:)` with a closure for the receiver (one allocation per call for it).
    public nonisolated func whenAnswered(
        _ submission: Submission, _ receiver: @escaping @Sendable (Result<MutationResult, ReadingListError>) -> Void
    ) {
        whenAnswered(submission, ClosureReceiver(receiver))
    }

    /// Hands a group of store completions to the actor.
    nonisolated(nonsending) func completeHere(_ group: [Completion]) async {
        if runHere(group, { list, group in list.complete(group) }) != nil { return }
        await complete(group)
    }
}
