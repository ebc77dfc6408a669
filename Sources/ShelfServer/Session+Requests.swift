import Foundation
import ShelfCore
import ShelfJSON
import ShelfWire
import Synchronization

extension Session {
    /// Produces one response when the writer gets to it; `nil` for a notification.
    typealias Answer = nonisolated(nonsending) @Sendable () async -> Encoded?

    /// Queues the reply job for one framed line, then carries the request out, in arrival order: a mutation is
    /// submitted to the list (its answer is collected by the writer); any other request first waits until this
    /// connection's earlier mutations are answered, then runs and is encoded at once — so it sees exactly the
    /// connection's earlier changes, never a later one.
    /// The reader holds one `window` slot for the request; whoever answers it gives the slot back.
    nonisolated(nonsending) func handle(_ event: LineFramer.Event, context: inout ReaderContext, window: RequestWindow) async {
        switch event {
        case .tooLong(let limit):
            let error = RPCError(.invalidRequest, "Invalid request: line longer than \(limit) bytes; it was discarded")
            let line = Self.line(Self.encode(RPCResponse(id: .null, outcome: .failure(error))).json)
            outbox.push { Outbox.Reply(line: line, revision: nil, held: 0) }
        case .telnetReply(let bytes):
            // Held against the reply budget like any reply: a peer that sends DO after DO and reads nothing must
            // not make the server queue refusals without bound.
            guard await outbox.holdReplyBytes(bytes.count) else { return refuseForMemory(context: &context) }
            outbox.push { Outbox.Reply(line: bytes, revision: nil, held: bytes.count) }
        case .line(let bytes):
            switch IncomingMessage.decodeCall(line: bytes) {
            case .single(let element):
                if outbox.beginDirectWrite() {
                    await answerDirectly(element, context: &context, window: window)
                } else {
                    await answerQueued(element, context: &context)
                }
            case .batch(let elements):
                await answerBatch(elements, context: &context)
            }
        }
    }

    // The two paths below are functions of their own, never inlined into `handle`: an async function's frame
    // holds every path's values, and a session keeps the deepest frame stack it ever had for as long as it lives.

    /// Queues the reply job for one request behind the replies owed before it, then carries it out.
    @inline(never)
    private nonisolated(nonsending) func answerQueued(_ element: IncomingMessage.IncomingRequest, context: inout ReaderContext) async {
        let promise = ReplyPromise<(Answer, Int)>()
        outbox.push {
            let (answer, held) = await promise.value
            return await answer()?.reply(held: held)
        }
        await outbox.waitForRoom()
        let idBytes = Self.heldIDBytes(element.id)
        if idBytes > 0, !(await outbox.holdReplyBytes(idBytes)) {
            refuseForMemory(context: &context)
            return promise.fulfil(({ nil }, 0))
        }
        // The client may have vanished while the reader waited: its requests are dropped, not run for nobody
        // (protocol/PROTOCOL.md §1).
        guard outbox.writeFailure == nil else {
            outbox.releaseReplyBytes(idBytes)
            return promise.fulfil(({ nil }, 0))
        }
        let prepared = await prepare(element, context: &context)
        // A peer that sends requests without reading the replies must not make the server buffer without
        // bound: past the budget the reader waits for the writer (and TCP pushes back on the peer). A read's
        // encoded reply includes the id held above: only the rest is added. A change's reply is made later and
        // holds nothing here, so a change carried out is never refused its reply.
        let more = max(0, prepared.encodedBytes - idBytes)
        guard !prepared.overCeiling,
            await outbox.holdReplyBytes(more, alreadyHeld: idBytes, precharged: prepared.charged)
        else {
            outbox.releaseReplyBytes(idBytes)
            refuseForMemory(context: &context)
            return promise.fulfil(({ nil }, 0))
        }
        promise.fulfil((makeAnswer(for: prepared), idBytes + more))
    }

    /// The server's memory ceiling refused this connection a reply (protocol/PROTOCOL.md §10): the reply is dropped,
    /// reading stops, and after the replies it is owed the connection gets `closing` (`memory_limit`) and closes,
    /// as when its read asks for more than the ceiling leaves.
    func refuseForMemory(context: inout ReaderContext) {
        context.keepReading = false
        if let memory { closeForMemory(memory) }
    }

    /// About how many bytes the reply to a mutation with `outcome` takes, before it is made: its item as JSON
    /// (`Item.jsonByteCount`, every member) and 128 bytes for the envelope and the revision (the request's id, which
    /// is echoed too, is bounded by the line it came in); 256 for an error or a reply without an item.
    static func estimatedReplyBytes(_ outcome: Result<MutationResult, ReadingListError>?) -> Int {
        guard case .success(let result)? = outcome, let item = result.item else { return 256 }
        return 128 + item.jsonByteCount
    }

    /// The bytes a request's id takes in its reply when it is 1 KiB or more, and so counts against the reply budget
    /// on its own; 0 for a smaller one (bounded by the request window). A reply waiting for the writer keeps its id:
    /// a client that pipelined a thousand changes with 1 MB ids without reading held a gigabyte.
    static func heldIDBytes(_ id: RequestID?) -> Int {
        let bytes: Int
        switch id {
        case .string(let text)?: bytes = text.utf8.count + 2
        case .number(let number)?: bytes = number.text.utf8.count
        case .null?, nil: return 0
        }
        return bytes >= 1024 ? bytes : 0
    }

    /// One carried-out request: the closure that produces its response (`nil` for a notification), and how many
    /// bytes of it are already encoded (held against the reply budget until written).
    struct Prepared {
        /// The closure, read only through `makeAnswer(for:)`; for a mutation `Session.madeLater`, as
        /// `makeAnswer(for:)` makes its closure from `mutation` only when the writer needs one: a reply written
        /// directly needs none, and that saves it an allocation.
        fileprivate var answer: Answer
        var encodedBytes = 0
        /// Bytes of the reply charged to the server's memory account as it was made (`Encoded.charged`).
        var charged = 0
        /// True when the memory ceiling refused the reply as it was made (`listReply`): nothing is to be sent,
        /// and the session closes (`refuseForMemory`).
        var overCeiling = false
        /// A mutation's submission, and the id its reply carries (`nil` for a notification).
        var mutation: (submission: Submission, id: RequestID?)?
    }

    /// A mutation's `Prepared.answer`, never called (`makeAnswer(for:)` does not return it for a mutation): a
    /// closure without context, so storing it allocates nothing.
    private static let madeLater: Answer = { nil }

    /// The closure that produces `prepared`'s response: its own, or for a mutation one that waits for the list's
    /// answer to it and encodes that.
    func makeAnswer(for prepared: Prepared) -> Answer {
        guard let (submission, id) = prepared.mutation else { return prepared.answer }
        let list = self.list
        return {
            let outcome = await list.outcome(of: submission)
            guard let id else { return nil }
            return Self.encode(id: id, mutation: outcome)
        }
    }

    /// Carries out one request.
    nonisolated(nonsending) func prepare(_ element: IncomingMessage.IncomingRequest, context: inout ReaderContext) async -> Prepared {
        switch element {
        case .invalid(let error, let id):
            return Self.answer(id, .failure(error))
        case .call(let id, let call):
            if !context.authenticated, !Self.allowedBeforeAuth.contains(call.methodName) {
                return Self.answer(id, .failure(Self.unauthorized))
            }
            return await prepare(call, id: id, context: &context)
        case .request(let request):
            if !context.authenticated, !Self.allowedBeforeAuth.contains(request.method) {
                return Self.answer(request.id, .failure(Self.unauthorized))
            }
            switch MethodCall.decode(request) {
            case .failure(let error):
                return Self.answer(request.id, .failure(error))
            case .success(let call):
                return await prepare(call, id: request.id, context: &context)
            }
        }
    }

    /// The methods a connection may call before `auth` when the server has a token.
    static let allowedBeforeAuth = ["hello", "ping", "auth"]

    /// The error for any other request before `auth` (protocol/PROTOCOL.md §12).
    static let unauthorized = RPCError(.unauthorized, "Unauthorized: authenticate first with {\"method\":\"auth\",\"params\":{\"token\":\"…\"}}")

    /// Carries out one typed request.
    private nonisolated(nonsending) func prepare(_ call: MethodCall, id: RequestID?, context: inout ReaderContext) async -> Prepared {
        switch call {
        case .mutate(let mutation, let expect, let expectItem):
            let submission = await list.submit(mutation, expect: expect, expectItem: expectItem)
            if case .pending(let ticket) = submission { context.lastPendingTicket = ticket }
            return Prepared(answer: Self.madeLater, mutation: (submission, id))
        case .auth(let token):
            return Self.answer(id, await authenticate(token, context: &context))
        default:
            if let ticket = context.lastPendingTicket {
                await list.settle(ticket)
                context.lastPendingTicket = nil
            }
            // A read sent as a notification could only be thrown away: it does nothing (a `watch` needs an id to
            // deliver its backlog).
            guard let id else { return Prepared(answer: { nil }) }
            var encoded: Encoded
            // A watch's backlog is queued as notifications, written before its reply: held with it.
            var backlogBytes = 0
            if case .list(let query) = call {
                guard let reply = await listReply(id: id, query: query) else {
                    return Prepared(answer: { nil }, overCeiling: true)
                }
                encoded = reply
            } else if case .watch(let since) = call {
                (encoded, backlogBytes) = await watchReply(id: id, since: since)
            } else {
                let (outcome, revision) = await run(call)
                encoded = Self.encode(RPCResponse(id: id, outcome: outcome), revision: revision)
            }
            let bytes = encoded.json.count + backlogBytes
            // Handed over, not copied: the line is then made in place, and once written nothing holds the bytes (a
            // copy held by this closure doubled what a connection holds for a large `list` or `watch` backlog).
            let charged = encoded.charged
            let once = EncodedOnce(encoded)
            return Prepared(answer: { once.take() }, encodedBytes: bytes, charged: charged)
        }
    }

    /// Checks `token` (protocol/PROTOCOL.md §12): first waits for this peer address's slot when it has been
    /// guessing (`GuessThrottle`), then compares; the third wrong token in a row closes the connection.
    private nonisolated(nonsending) func authenticate(_ token: String, context: inout ReaderContext) async -> Result<JSONValue, RPCError> {
        guard let check = tokenCheck, let gate = authGate else { return .success(MethodResult.empty.json) }
        let address = AuthGate.address(ofPeer: connection.peer)
        guard let slot = gate.slot(for: address) else {
            gate.log("connection \(connection.id) from \(connection.peer): auth refused unchecked, too many attempts from its address", to: log)
            let wait = Int(configuration.guessMaxDelay.components.seconds)
            return .failure(RPCError(
                .unauthorized, "Unauthorized: too many auth attempts from your address; not checked, try again in \(wait) s",
                extra: [("retryAfter", .number(JSONNumber(wait)))]))
        }
        if slot > .now {
            do {
                try await connection.executor.sleep(until: slot)
            } catch {
                // The connection is closing (its auth deadline, say): nothing is checked for it any more.
                context.keepReading = false
                return .failure(RPCError(.unauthorized, "Unauthorized: the connection is closing"))
            }
        }
        if check.matches(token) {
            context.authenticated = true
            context.failedAuthAttempts = 0
            gate.authenticated(connection.id, address: address)
            return .success(MethodResult.empty.json)
        }
        context.failedAuthAttempts += 1
        let left = TokenCheck.maxFailures - context.failedAuthAttempts
        if left <= 0 {
            context.keepReading = false
            gate.log("connection \(connection.id) from \(connection.peer): \(TokenCheck.maxFailures) failed auth attempts; closing", to: log)
            return .failure(RPCError(.unauthorized, "Unauthorized: wrong token; closing after \(TokenCheck.maxFailures) failed attempts"))
        }
        gate.log("connection \(connection.id) from \(connection.peer): wrong token (\(left) attempt\(left == 1 ? "" : "s") left)", to: log)
        return .failure(RPCError(.unauthorized, "Unauthorized: wrong token (\(left) attempt\(left == 1 ? "" : "s") left)"))
    }

    /// Runs a request that is neither a mutation, `auth`, `list` nor `watch` (those have their own paths).
    private func run(_ call: MethodCall) async -> (Result<JSONValue, RPCError>, Revision?) {
        switch call {
        case .hello:
            let revision = await list.revision
            return (.success(MethodResult.hello(
                revision: revision, authRequired: tokenCheck != nil, run: runID, list: list.identity).json), revision)
        case .ping:
            return (.success(MethodResult.pong.json), nil)
        case .get(let id):
            do {
                let (item, revision) = try await list.item(id)
                return (.success(MethodResult.item(revision: revision, item: item).json), revision)
            } catch {
                return (.failure(RPCError(error)), nil)
            }
        case .unwatch:
            // Removed on the actor, as `watch` adds: changes published between a removal here and a revision read
            // there were neither sent nor left out of the reply's revision.
            let feed = self.feed
            let id = connection.id
            let revision = await list.unwatch { feed.remove(id) }
            return (.success(MethodResult.revision(revision).json), revision)
        case .mutate, .auth, .list, .watch:
            return (.failure(RPCError(.internalError, "Internal error: request routed to the wrong handler")), nil)
        }
    }

    /// `{"jsonrpc":"2.0","id":…,"result":{"revision":N,"items":[…]}}` written straight to bytes (with `"next"` when
    /// a `limit` left more): for a filter alone the items come from the shared cache, as a `list` of a large list is
    /// the heaviest reply there is; a search, a sort or a page is run over the snapshot (protocol/PROTOCOL.md §5).
    ///
    /// A reply of `checkedReplyBytes` or more is charged to the server's memory account before its buffer is made,
    /// on the thread that makes it: connections that all read a `list` at the same moment each encoded and queued
    /// 22 MB before the first was charged, and held 4.4 times the ceiling.
    /// - Returns: `nil`, having made nothing, when the ceiling does not allow the reply.
    private func listReply(id: RequestID, query: ItemQuery) async -> Encoded? {
        let snapshot = await list.snapshot()
        let listCache = self.listCache
        let memory = self.memory
        let encode: @Sendable () -> Encoded? = {
            var items: [UInt8]
            var next: UUID?
            if query.isFilterOnly {
                items = listCache.items(query.filter, of: snapshot)
            } else {
                let page: [Item]
                do {
                    (page, next) = try query.run(on: snapshot.items)
                } catch {
                    let refusal = RPCError(
                        .invalidParams,
                        "Invalid params: the cursor item is no longer in this listing (removed, or it no longer matches); list again from the start")
                    return Self.encode(RPCResponse(id: id, outcome: .failure(refusal)), revision: nil)
                }
                items = [UInt8(ascii: "[")]
                for (index, item) in page.enumerated() {
                    if index > 0 { items.append(UInt8(ascii: ",")) }
                    item.appendJSON(to: &items)
                }
                items.append(UInt8(ascii: "]"))
            }
            var bytes: [UInt8] = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
            JSONWriter.append(id.json, to: &bytes)
            JSONWriter.appendRaw(#","result":{"revision":"#, to: &bytes)
            JSONWriter.appendInteger(snapshot.revision, to: &bytes)
            JSONWriter.appendRaw(#","items":"#, to: &bytes)
            // Room for the items, the closing braces and the LF the line gets, whatever the id's length: growing a
            // multi-megabyte buffer would copy it, and double it.
            let size = bytes.count + items.count + 60
            // Charged before the buffer is made: a refused reply costs no copy. At most the `items` of a search, sort
            // or page (made for this reply) exist uncharged meanwhile: one reply per encoding under way.
            var charged = 0
            if size >= Self.checkedReplyBytes, let memory {
                guard memory.charge(size) else { return nil }
                charged = size
            }
            bytes.reserveCapacity(size)
            bytes.append(contentsOf: items)
            if let next {
                JSONWriter.appendRaw(#","next":""#, to: &bytes)
                next.appendWireText(to: &bytes)
                bytes.append(UInt8(ascii: "\""))
            }
            JSONWriter.appendRaw("}}", to: &bytes)
            return Encoded(json: bytes, revision: snapshot.revision, charged: charged)
        }
        // Decided by work, not by items alone: a few hundred items with 10 KB notes are megabytes to search. The
        // estimate reads no text, and is only made for lists small enough to stay on the loop otherwise.
        let small = snapshot.items.count <= Self.largeListItems
            && (query.isFilterOnly || query.estimatedWork(over: snapshot.items) <= Self.loopSearchBytes)
        if small { return encode() }
        // Milliseconds of work: on the global pool, so the event loop every connection shares keeps serving.
        return await withTaskExecutorPreference(globalConcurrentExecutor) { encode() }
    }

    /// Above this many items a `list` reply is encoded off the event loop.
    static let largeListItems = 2000

    /// Above this much work (`ItemQuery.estimatedWork(over:)`, bytes compared) a search runs off the event loop:
    /// about a tenth of a millisecond of a linear search in a release build.
    static let loopSearchBytes = 256 << 10

    /// The size from which a read's reply is charged to the server's memory account within its ceiling even when it
    /// is written directly (`finishDirectWrite`), and a `list` reply as it is made: 64 KiB, the size from which a
    /// direct write counts against the reply budget at all. Smaller direct replies are bounded by the request window
    /// and charge nothing, so the common small request costs no atomic operation.
    static let checkedReplyBytes = heldDirectBytes

    /// Starts (or restarts) watching (protocol/PROTOCOL.md §6): the retained changes after `since` are queued as
    /// `changed` notifications, and the reply carries the revision they reach, so they go out before it, in
    /// revision order with everything else this connection is sent; live changes follow.
    /// - Returns: the reply, and the bytes of the backlog queued ahead of it.
    private func watchReply(id: RequestID, since: Revision?) async -> (Encoded, backlogBytes: Int) {
        let (outcome, revision, backlogBytes) = await watch(since: since)
        return (Self.encode(RPCResponse(id: id, outcome: outcome), revision: revision), backlogBytes)
    }

    private func watch(since: Revision?) async -> (Result<JSONValue, RPCError>, Revision?, backlogBytes: Int) {
        let connection = self.connection
        // The writer may be stuck in a write to a peer that stopped reading: close it after a grace second anyway.
        let watcher = ChangeFeed.Watcher(
            outbox: outbox, overflowed: { connection.close(after: .seconds(1)) },
            flush: { [self] in flushNotifications() })
        let feed = self.feed
        let id = connection.id
        let outbox = self.outbox
        let refusal = Mutex<RPCError?>(nil)
        let backlogBytes = Mutex(0)
        do {
            let revision = try await list.watch(since: since) { changes, revision in
                // On the list's actor: nothing is published meanwhile, so the backlog goes into the queue in
                // revision order, behind what an earlier watch still owes (kept: those are changes the client has
                // not seen) and ahead of every live change.
                let sent = outbox.lastNotifiedRevision
                if let since, since < sent {
                    // Each change goes to a connection once: sent again, it would also come after replies that carry
                    // later revisions (a `watch` with `since` behind the connection's own change would resend it after
                    // that change's reply).
                    refusal.withLock { $0 = Self.alreadySent(since: since, sent: sent, current: revision) }
                    return
                }
                // Refused before anything is encoded when even a low estimate does not fit: this runs on the list's
                // actor, where 10,000 kept changes of 25 KB take most of a second to encode.
                let room = outbox.backlogRoom
                let lines = Self.estimatedBytes(changes, stoppingAbove: room) <= room
                    ? changes.map { ($0.revision, ServerNotification.changed($0).line) } : nil
                guard let lines, outbox.queueBacklog(lines) else {
                    refusal.withLock { $0 = Self.backlogTooLarge(since: since ?? revision, maxBytes: outbox.maxBytes, current: revision) }
                    return
                }
                let queued = lines.reduce(0) { $0 + $1.1.count }
                backlogBytes.withLock { $0 = queued }
                feed.add(id, watcher)
            }
            if let refused = refusal.withLock({ $0 }) { return (.failure(refused), revision, 0) }
            return (.success(MethodResult.revision(revision).json), revision, backlogBytes.withLock { $0 })
        } catch {
            // Like a conflict, `6 compacted` carries the current revision: what an earlier watch still owes up to
            // it goes out first, so a client that lists and watches from there gets nothing older afterwards.
            if case .compacted(_, let current) = error { return (.failure(RPCError(error)), current, 0) }
            return (.failure(RPCError(error)), nil, 0)
        }
    }

    /// `6 compacted` for a `watch` whose `since` is below `sent`, the last change already sent or queued as a
    /// notification on this connection: each change goes to a connection once (protocol/PROTOCOL.md §6).
    static func alreadySent(since: Revision, sent: Revision, current: Revision) -> RPCError {
        RPCError(
            .compacted,
            "Changes up to revision \(sent) were already sent on this connection; watch from revision \(sent) or later "
                + "(since \(since) would send them again), or unwatch, list again and watch from the list's revision",
            extra: [("revision", .number(JSONNumber(current)))])
    }

    /// A low estimate of the bytes `changes` take as `changed` lines, made without encoding them: each item's JSON
    /// (`Item.jsonByteCount`) and 90 for the rest of an `added` or `updated` line (`{"jsonrpc":"2.0","method":
    /// "changed","params":{"revision":N,"change":{"kind":"added","item":…}}}` and its LF take 95 bytes and more), 120 for a
    /// `removed` line (133 at revision 1). Stops counting once past `limit`, so a backlog that cannot fit costs no
    /// more than the room it is measured against.
    static func estimatedBytes(_ changes: [RevisionedChange], stoppingAbove limit: Int = .max) -> Int {
        var bytes = 0
        for change in changes {
            switch change.change {
            case .added(let item), .updated(let item): bytes += 90 + item.jsonByteCount
            case .removed: bytes += 120
            }
            if bytes > limit { return bytes }
        }
        return bytes
    }

    /// `6 compacted` for a `watch` whose backlog after `since` is more than the connection may queue (`maxBytes`).
    static func backlogTooLarge(since: Revision, maxBytes: Int, current: Revision) -> RPCError {
        RPCError(
            .compacted,
            "The changes after revision \(since) are more than this connection may queue at once (half of \(maxBytes) "
                + "bytes, --max-outbound-bytes); list again and watch from there",
            extra: [("revision", .number(JSONNumber(current)))])
    }

    /// An answer known now: encoded at once, or nothing for a notification.
    static func answer(_ id: RequestID?, _ outcome: Result<JSONValue, RPCError>) -> Prepared {
        guard let id else { return Prepared(answer: { nil }) }
        let encoded = encode(RPCResponse(id: id, outcome: outcome))
        return Prepared(answer: { encoded }, encodedBytes: encoded.json.count)
    }
}
