import ShelfCore
import ShelfJSON
import ShelfWire

extension Session {
    /// Request lines that are each a single, valid mutation: their ids and their requests, in order (two arrays, so
    /// the requests go to the list as they are).
    struct MutationRun {
        var ids: [RequestID?] = []
        var requests: [ReadingList.Request] = []

        var count: Int { ids.count }

        mutating func append(id: RequestID?, _ mutation: Mutation, expect: Revision?, expectItem: Revision?) {
            ids.append(id)
            requests.append(ReadingList.Request(mutation, expect: expect, expectItem: expectItem))
        }
    }

    /// The longest run (at most 64, and at most `limit`: the request window, whose slots the run takes before any
    /// of its answers can be written) of lines at the start of `events` that are each one valid mutation request
    /// the connection may make; decoded once here.
    func mutationRun(_ events: ArraySlice<LineFramer.Event>, context: ReaderContext, limit: Int) -> MutationRun {
        var run = MutationRun()
        guard context.authenticated, events.count > 1, limit > 1 else { return run }
        let most = min(64, limit, events.count)
        run.ids.reserveCapacity(most)
        run.requests.reserveCapacity(most)
        for event in events.prefix(most) {
            guard case .line(let bytes) = event, case .single(let element) = IncomingMessage.decodeCall(line: bytes) else { break }
            // A large id counts against the reply budget, which only the one-at-a-time path holds (`answerQueued`).
            guard Self.heldIDBytes(element.id) == 0 else { return run }
            switch element {
            case .call(let id, .mutate(let mutation, let expect, let expectItem)):
                run.append(id: id, mutation, expect: expect, expectItem: expectItem)
            case .request(let request):
                guard case .success(.mutate(let mutation, let expect, let expectItem)) = MethodCall.decode(request) else { return run }
                run.append(id: request.id, mutation, expect: expect, expectItem: expectItem)
            case .call, .invalid:
                return run
            }
        }
        return run
    }

    /// Queues the reply jobs of a run of mutations in order, submits them all in one call to the list, then lets
    /// the writer collect each answer — the same order and answers as one at a time, with one actor hop.
    nonisolated(nonsending) func submitRun(_ run: MutationRun, window: RequestWindow, context: inout ReaderContext) async {
        if window.tryAcquire(run.count) {
            if outbox.beginDirectWrite() {
                await answerRunDirectly(run, window: window, context: &context)
                return
            }
            window.release(run.count)
        }
        // Every slot first: the client may vanish while the reader waits for one, and then the whole run is
        // dropped, not run for nobody (protocol/PROTOCOL.md §1; with jobs queued slot by slot, up to 64 adds were
        // carried out after a reset).
        guard run.count > 0 else { return }
        for acquired in 1...run.count {
            await window.acquire()
            if outbox.writeFailure != nil { return window.release(acquired) }
        }
        var promises: [ReplyPromise<Submission>] = []
        promises.reserveCapacity(run.count)
        let list = self.list
        for id in run.ids {
            let promise = ReplyPromise<Submission>()
            promises.append(promise)
            outbox.push { await Self.reply(to: await promise.value, id: id, from: list) }
        }
        let submissions = await list.submitAll(run.requests)
        for (promise, submission) in zip(promises, submissions) {
            if case .pending(let ticket) = submission { context.lastPendingTicket = ticket }
            promise.fulfil(submission)
        }
    }

    /// A run with nothing owed ahead of it (`Outbox.beginDirectWrite`) and its `window` slots taken: when every
    /// mutation is answered at once (the memory store), the replies go out in one write, each after the
    /// notifications it must follow; otherwise their reply jobs go to the writer, in order.
    private nonisolated(nonsending) func answerRunDirectly(_ run: MutationRun, window: RequestWindow, context: inout ReaderContext) async {
        let submissions = await list.submitAll(run.requests)
        var outcomes: [Result<MutationResult, ReadingListError>] = []
        for submission in submissions {
            switch submission {
            case .answered(let outcome): outcomes.append(outcome)
            case .pending(let ticket): context.lastPendingTicket = ticket
            }
        }
        guard outcomes.count == run.count else {
            let list = self.list
            let jobs: [Outbox.Job] = zip(run.ids, submissions).map { id, submission in
                { await Self.reply(to: submission, id: id, from: list) }
            }
            outbox.endDirectWrite(then: jobs)
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(run.count * 256)
        for (id, outcome) in zip(run.ids, outcomes) {
            guard let id else { continue }
            appendDirectReply(id: id, mutation: outcome, to: &bytes)
        }
        finishDirectWrite(bytes, releasing: run.count, of: window)
    }

    /// The reply line to one submitted mutation, once it is answered; `nil` for a notification (its answer is still
    /// collected).
    static func reply(to submission: Submission, id: RequestID?, from list: ReadingList) async -> Outbox.Reply? {
        let outcome = await list.outcome(of: submission)
        guard let id else { return nil }
        let reply = encode(id: id, mutation: outcome)
        return Outbox.Reply(line: line(reply.json), revision: reply.revision, held: 0)
    }
}
