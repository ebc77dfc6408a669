import ShelfCore
import ShelfJSON
import ShelfWire

extension Session {
    /// One request line that is a single, valid mutation.
    struct PlainMutation {
        let id: RequestID?
        let mutation: Mutation
        let expect: Revision?
    }

    /// The longest run (at most 64) of lines at the start of `events` that are each one valid mutation request the
    /// connection may make; decoded once here.
    func mutationRun(_ events: ArraySlice<LineFramer.Event>, context: ReaderContext) -> [PlainMutation] {
        guard context.authenticated, events.count > 1 else { return [] }
        var run: [PlainMutation] = []
        for event in events.prefix(64) {
            guard case .line(let bytes) = event, case .single(.request(let request)) = IncomingMessage.decode(line: bytes),
                  case .success(.mutate(let mutation, let expect)) = MethodCall.decode(request)
            else { break }
            run.append(PlainMutation(id: request.id, mutation: mutation, expect: expect))
        }
        return run
    }

    /// Queues the reply jobs of a run of mutations in order, submits them all in one call to the list, then lets
    /// the writer collect each answer — the same order and answers as one at a time, with one actor hop.
    func submitRun(_ run: [PlainMutation], window: RequestWindow, context: inout ReaderContext) async {
        var promises: [ReplyPromise<Submission>] = []
        for request in run {
            await window.acquire()
            let promise = ReplyPromise<Submission>()
            promises.append(promise)
            let list = self.list
            let id = request.id
            outbox.push {
                let outcome: Result<MutationResult, ReadingListError> =
                    switch await promise.value {
                    case .answered(let outcome): outcome
                    case .pending(let ticket): await list.answer(ticket)
                    }
                guard let id else { return nil }
                let reply = Self.encode(RPCResponse(id: id, outcome: Self.result(of: outcome)), revision: try? outcome.get().revision)
                return Outbox.Reply(line: Self.line(reply.json), revision: reply.revision, held: 0)
            }
        }
        let submissions = await list.submitAll(run.map { ($0.mutation, $0.expect) })
        for (promise, submission) in zip(promises, submissions) {
            if case .pending(let ticket) = submission { context.lastPendingTicket = ticket }
            promise.fulfil(submission)
        }
    }
}
