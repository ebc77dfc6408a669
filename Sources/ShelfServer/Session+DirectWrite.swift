import ShelfCore
import ShelfSockets
import ShelfWire

extension Session: AnswerReceiver {
    /// Answers one request with nothing owed ahead of it (`Outbox.beginDirectWrite`): the reader writes the reply
    /// itself as far as the socket takes it at once, sparing the writer task a wake-up per request. A mutation
    /// still being saved keeps the direct write until the list answers it, and its reply is written then, from
    /// the list's publish (`ReadingList.whenAnswered`); whatever the socket did not take goes to the writer.
    nonisolated(nonsending) func answerDirectly(
        _ element: IncomingMessage.IncomingRequest, context: inout ReaderContext, window: RequestWindow
    ) async {
        let prepared = await prepare(element, context: &context)
        if finishDirectReply(mutation: prepared.mutation, window: window) { return }
        if prepared.overCeiling {
            finishDirectReply(nil, window: window)
            return refuseForMemory(context: &context)
        }
        if !finishDirectReply(await makeAnswer(for: prepared)(), window: window) { refuseForMemory(context: &context) }
    }

    /// Ends a direct write with a mutation's reply: at once for an answered one (a memory store's change, or a
    /// refusal), without calling an answer closure; for a pending one when the list publishes it (requests read
    /// meanwhile queue behind this reply, and notifications wait for it: the outbox holds them while a direct
    /// write is on). Synchronous, so the caller's async frame does not hold the outcome: a session keeps the
    /// largest frame stack it ever had for as long as it lives.
    /// - Returns: false, doing nothing, when the request was not a mutation.
    private func finishDirectReply(mutation: (submission: Submission, id: RequestID?)?, window: RequestWindow) -> Bool {
        guard let (submission, id) = mutation else { return false }
        if case .answered(let outcome) = submission {
            finishDirectReply(id: id, mutation: outcome, window: window)
        } else {
            awaitedAnswer.withLock { awaited in
                // One direct write at a time (`Outbox.beginDirectWrite`), so one awaited answer at a time.
                assert(awaited == nil, "a second awaited answer before the first was received")
                awaited = AwaitedAnswer(id: id, window: window)
            }
            list.whenAnswered(submission, self)
        }
        return true
    }

    /// What the direct reply to an awaited mutation needs once the list answers it.
    struct AwaitedAnswer {
        let id: RequestID?
        let window: RequestWindow
    }

    /// The list's answer to the awaited mutation (`awaitedAnswer`): its direct reply is written now.
    func receive(_ outcome: Result<MutationResult, ReadingListError>) {
        guard let awaited = awaitedAnswer.withLock({ $0.take() }) else { return }
        finishDirectReply(id: awaited.id, mutation: outcome, window: awaited.window)
    }

    /// Ends a direct write with a mutation's reply, written in place after the notifications it must follow (no
    /// reply for a notification); either way the request's `window` slot is given back.
    private func finishDirectReply(id: RequestID?, mutation outcome: Result<MutationResult, ReadingListError>, window: RequestWindow) {
        guard let id else {
            finishDirectReply(nil, window: window)
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendDirectReply(id: id, mutation: outcome, to: &bytes)
        finishDirectWrite(bytes, releasing: 1, of: window)
    }

    /// Ends a direct write with `reply` (each notification it must follow first), or with nothing for a
    /// notification; either way the request's `window` slot is given back.
    /// - Returns: false when the server's memory ceiling refused the reply (`finishDirectWrite`), which was dropped.
    @discardableResult
    private func finishDirectReply(_ reply: consuming Encoded?, window: RequestWindow) -> Bool {
        guard var reply = consume reply else {
            window.release()
            outbox.endDirectWrite()
            return true
        }
        var bytes = outbox.takeNotifications(upTo: reply.revision)
        if bytes.isEmpty {
            // Nothing goes before it: the response's own buffer becomes the line. When nothing else holds that buffer
            // (a mutation's reply, made for this call) the LF is appended in place; a response also held by its
            // answer closure (one known at once, such as a `list`) is copied by the append.
            swap(&bytes, &reply.json)
        } else {
            bytes.append(contentsOf: reply.json)
        }
        bytes.append(0x0A)
        return finishDirectWrite(bytes, releasing: 1, of: window, precharged: reply.charged, refusable: true)
    }

    /// Appends what a direct write sends for a mutation's reply: the queued notifications it must follow, then its
    /// line, written in place (no buffer per reply).
    func appendDirectReply(id: RequestID, mutation outcome: Result<MutationResult, ReadingListError>, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: outbox.takeNotifications(upTo: Self.revision(of: outcome)))
        Self.appendResponse(id: id, mutation: outcome, to: &bytes)
        bytes.append(0x0A)
    }

    /// Ends a direct write: gives back `slots` window slots (the requests are answered), then sends `bytes` once
    /// the event loop's current round is over (so the replies of one round leave back to back, as Redis writes its
    /// replies before it sleeps); whatever the socket does not take goes to the writer.
    ///
    /// A large reply (`heldDirectBytes` or more) is held against the reply budget from now on: the reader goes on
    /// in this round, and must find it counted, or it carries out and holds another (a `list` of 10 MB, twice).
    /// It is charged to the server's memory account too, within the ceiling when `refusable`.
    /// - Parameters:
    ///   - precharged: bytes of it charged to the memory account when it was made (`Encoded.charged`).
    ///   - refusable: whether the memory ceiling may refuse it: a read's reply; a change's is sent whatever the
    ///     ceiling (the change is made).
    /// - Returns: false when the ceiling refused it: nothing is sent, the direct write is over, and the caller
    ///   closes the session (`refuseForMemory`).
    @discardableResult
    func finishDirectWrite(
        _ bytes: [UInt8], releasing slots: Int, of window: RequestWindow, precharged: Int = 0, refusable: Bool = false
    ) -> Bool {
        window.release(slots)
        // A charged reply is held whatever its size, so that its charge is given back once it is written.
        let held = bytes.count >= Self.heldDirectBytes || precharged > 0 ? bytes.count : 0
        if held > 0, !outbox.holdDirectWrite(held, precharged: precharged, refusable: refusable) {
            outbox.endDirectWrite()
            return false
        }
        if !connection.executor.afterRound(DirectSend(session: self, bytes: bytes, held: held)) {
            sendDirectly(bytes, held: held)
        }
        return true
    }

    /// The size from which a direct write's bytes count against the reply budget. Smaller replies are bounded by
    /// the request window, and counting them would cost every request a lock.
    static let heldDirectBytes = 64 << 10

    /// A direct write's bytes, sent at the end of the round: three words, so the loop keeps it without allocating.
    private struct DirectSend: RoundEndWork {
        let session: Session
        let bytes: [UInt8]
        /// Bytes `finishDirectWrite` held against the reply budget.
        let held: Int

        func roundEnded() {
            session.sendDirectly(bytes, held: held)
        }
    }

    /// Sends the notifications a `changed` claimed a direct write for (`Outbox.NotifyOutcome.directWrite`) at the
    /// end of the round, together with any that follow in the same round: one write per watcher per round.
    func flushNotifications() {
        afterRound { [self] in sendDirectly(outbox.takeNotificationsForDirectWrite()) }
    }

    /// Runs `work` when the event loop's current round is over, or now when not on the event loop.
    private func afterRound(_ work: @escaping @Sendable () -> Void) {
        if !connection.executor.afterRound(work) { work() }
    }

    /// Sends what the socket takes of `bytes` now and ends the direct write, leaving the rest to the writer;
    /// `held` bytes of the reply budget are given back (the rest is held until the writer sends it).
    private func sendDirectly(_ bytes: [UInt8], held: Int = 0) {
        var sent = bytes.count
        do {
            if !bytes.isEmpty { sent = try connection.writeNow(bytes[...]) }
        } catch {
            // The reader fails next and the session ends, logging why.
            outbox.recordWriteFailure("\(error)")
            connection.close()
        }
        outbox.endDirectWrite(unsent: bytes[sent...], releasing: held)
    }
}
