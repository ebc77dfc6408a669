import Foundation
import ShelfCore
import ShelfJSON
import ShelfWire

extension Session {
    /// One request of a line, decoded once (its method call too) when the line is read.
    struct Request {
        let id: RequestID?
        let call: Result<MethodCall, RPCError>
        /// The method asked for, when the request named one (for the check before `auth`).
        let method: String?

        /// A request already decoded (`Incoming.mutation` going the one-at-a-time way).
        init(id: RequestID?, call: Result<MethodCall, RPCError>, method: String?) {
            (self.id, self.call, self.method) = (id, call, method)
        }

        init(_ element: IncomingMessage.IncomingRequest) {
            switch element {
            case .invalid(let error, let id): (self.id, call, method) = (id, .failure(error), nil)
            case .call(let id, let call): (self.id, self.call, method) = (id, .success(call), call.methodName)
            case .request(let request): (id, call, method) = (request.id, MethodCall.decode(request), request.method)
            }
        }

        /// The mutation it asks for, when it is one the reader may group with others (`submitRun`).
        var plainMutation: ReadingList.Request? {
            guard case .success(.mutate(let mutation, let expect, let expectItem)) = call else { return nil }
            return ReadingList.Request(mutation, expect: expect, expectItem: expectItem)
        }
    }

    /// Carries out the request (or the run of mutations, or the batch) at the front of `incoming`, in order, each
    /// with its reply slot.
    /// - Returns: how many entries of `incoming` it consumed.
    func handle(_ incoming: [Incoming], from index: Int) async -> Int {
        switch incoming[index] {
        case .tooLong(let limit):
            await waitForRoom()
            let error = RPCError(.invalidRequest, "Invalid request: line longer than \(limit) bytes; it was discarded")
            appendReady(Self.reply(.null, .failure(error)))
        case .telnetReply(let bytes):
            // Held against the reply budget like any reply: a peer that sends DO after DO and reads nothing must
            // not make the server queue refusals without bound.
            await waitForRoom()
            appendReady(.raw(bytes))
        case .batch(let requests):
            await answerBatch(requests)
        case .mutation(let mutation, let id):
            let run = mutationRun(incoming, from: index)
            if run > 1 {
                await submitRun(incoming[index..<index + run])
                return run
            }
            let call = MethodCall.mutate(mutation.mutation, expect: mutation.expect, expectItem: mutation.expectItem)
            await carryOutAlone(Request(id: id, call: .success(call), method: call.methodName))
        case .request(let request):
            await carryOutAlone(request)
        }
        return 1
    }

    /// Carries out one request with its own slot, once the window and the budget have room.
    private func carryOutAlone(_ request: Request) async {
        await waitForRoom()
        guard canServe else { return }
        let slot = replies.append(reserving: Self.heldIDBytes(request.id))
        let carried = await carryOut(request, slot: slot)
        if carried.overCeiling {
            fill(slot, with: .nothing)
            refuseForMemory()
        }
    }

    /// The longest run (at most 64, and at most the request window) of single, plain mutations at the front of
    /// `incoming`, on an authenticated connection: they go to the list in one call.
    func mutationRun(_ incoming: [Incoming], from index: Int) -> Int {
        guard authenticated else { return 0 }
        let end = min(incoming.count, index + min(64, configuration.maxPendingRequests))
        var count = 0
        while index + count < end, incoming[index + count].isGroupableMutation { count += 1 }
        return count
    }

    /// Submits a run of mutations in one call to the list, one slot each, in order: the same answers and order as
    /// one at a time, with one actor call.
    private func submitRun(_ run: ArraySlice<Incoming>) async {
        await waitForRoom(slots: run.count)
        // The client may have vanished meanwhile: its requests are dropped, not run for nobody (PROTOCOL.md §1).
        guard canServe else { return }
        var requests: [ReadingList.Request] = []
        var ids: [RequestID?] = []
        requests.reserveCapacity(run.count)
        ids.reserveCapacity(run.count)
        for case .mutation(let mutation, let id) in run {
            requests.append(mutation)
            ids.append(id)
        }
        let first = replies.append()
        for _ in 1..<requests.count { _ = replies.append() }
        let submissions = await onList(requests) { list, requests in list.submitAll(requests) }
        for (offset, submission) in submissions.enumerated() {
            await answer(submission, id: ids[offset], slot: first + ReplyQueue.Slot(offset))
        }
    }

    /// Runs `body` isolated to the list: in place when the list runs on this loop (`shelfd`), else as an actor call.
    /// The hot calls (a change's submission) go through it: an actor call between two actors of one executor is
    /// switched in place too, but each switch looks up the task's executor preference under the task's status lock,
    /// 2,100 of 32,247 instructions per memory `add` under callgrind (scripts/bench-instructions). `body` should
    /// capture nothing, so no closure context is allocated.
    func onList<Argument: Sendable, T: Sendable>(
        _ argument: Argument, _ body: @escaping @Sendable (isolated ReadingList, Argument) -> T
    ) async -> T {
        if let now = onListNow(argument, body) { return now }
        return await runIsolated(to: list, argument, body)
    }

    /// `onList` when the list runs on this loop; `nil`, running nothing, anywhere else.
    func onListNow<Argument: Sendable, T: Sendable>(
        _ argument: Argument, _ body: @escaping @Sendable (isolated ReadingList, Argument) -> T
    ) -> T? {
        guard list.isIsolatingCurrentContext else { return nil }
        // Sound because of the check above: the list's executor is serial and this thread runs it now, so nothing
        // else runs isolated to the list until `body` returns; the two function types differ only in that promise.
        let inPlace = unsafeBitCast(body, to: (@Sendable (ReadingList, Argument) -> T).self)
        return inPlace(list, argument)
    }

    /// Carries out, without suspending, the run of plain mutations (one or more) at `index` when the list runs on
    /// this loop and the window and budget have room: the common request costs no suspension of the reader.
    /// - Returns: how many entries it carried out; 0 when `handle(_:from:)` must.
    func handleNow(_ incoming: inout [Incoming], from index: Int) -> Int {
        let run = mutationRun(incoming, from: index)
        guard run > 0, hasRoom(slots: run), list.isIsolatingCurrentContext else { return 0 }
        if run == 1 {
            // One alone: no arrays.
            var entry = Incoming.tooLong(0)
            swap(&entry, &incoming[index])
            guard case .mutation(let mutation, let id) = consume entry,
                  let submission = onListNow(mutation, { list, request in
                      list.submit(request.mutation, expect: request.expect, expectItem: request.expectItem)
                  })
            else { return 1 }
            if !take(CollectionOfOne(submission), ids: CollectionOfOne(id)) {
                take(submission, id: id, slot: replies.append())
            }
            return 1
        }
        var requests: [ReadingList.Request] = []
        var ids: [RequestID?] = []
        requests.reserveCapacity(run)
        ids.reserveCapacity(run)
        for position in index..<index + run {
            // Moved out, not copied: the entry is not read again.
            var entry = Incoming.tooLong(0)
            swap(&entry, &incoming[position])
            guard case .mutation(let mutation, let id) = consume entry else { continue }
            requests.append(mutation)
            ids.append(id)
        }
        // In place: the list was found on this loop above.
        let submissions = onListNow(requests, { list, requests in list.submitAll(requests) }) ?? []
        guard !submissions.isEmpty else { return run }
        if take(submissions, ids: ids) { return run }
        let first = replies.append()
        for _ in 1..<submissions.count { _ = replies.append() }
        for (offset, submission) in submissions.enumerated() {
            take(submission, id: ids[offset], slot: first + ReplyQueue.Slot(offset))
        }
        return run
    }

    /// Answers submissions all answered at once (the memory store) with one reply of their lines, encoded now,
    /// when the connection does not watch: no notification can then have to go between two of them, so their
    /// revisions need not be kept apart.
    /// - Returns: false, doing nothing, when one is pending or the connection watches.
    private func take(_ submissions: some Collection<Submission>, ids: some Collection<RequestID?>) -> Bool {
        guard !feed.isWatching(connection.id), notifications.isEmpty else { return false }
        for submission in submissions { guard case .answered = submission else { return false } }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(submissions.count * 256)
        for (submission, id) in zip(submissions, ids) {
            guard case .answered(let outcome) = submission, let id else { continue }
            Self.appendResponse(id: id, mutation: outcome, to: &bytes)
            bytes.append(0x0A)
        }
        appendReady(bytes.isEmpty ? .nothing : .raw(bytes))
        return true
    }

    /// `answer(_:id:slot:)` in place, without suspending (the list runs on this loop).
    private func take(_ submission: Submission, id: RequestID?, slot: ReplyQueue.Slot) {
        switch submission {
        case .answered(let outcome):
            fill(slot, with: id.map { .mutation($0, outcome) } ?? .nothing)
        case .pending(let ticket):
            lastPendingTicket = ticket
            awaited.append(AwaitedAnswer(ticket: ticket, slot: slot, part: nil, id: id))
            _ = onListNow((ticket, self)) { list, waiting in list.wait(for: waiting.0, waiting.1) }
        }
    }

    /// What carrying out one request left for its caller to account.
    struct Carried {
        /// Bytes of its reply made now (0 for a change's, made once it is saved).
        var encodedBytes = 0
        /// A mutation's submission.
        var submission: Submission?
        /// The server's memory ceiling refused its reply (`listReply`): its slot is left for the caller to fill, and
        /// the session closes.
        var overCeiling = false
    }

    /// Carries out one request and fills its slot (or its part of a batch's slot), now or once it is saved.
    func carryOut(_ request: Request, slot: ReplyQueue.Slot, part: Int? = nil) async -> Carried {
        if !authenticated, let method = request.method, !Self.allowedBeforeAuth.contains(method) {
            return fill(slot, part: part, Self.reply(request.id, .failure(Self.unauthorized)))
        }
        let call: MethodCall
        switch request.call {
        case .failure(let error): return fill(slot, part: part, Self.reply(request.id, .failure(error)))
        case .success(let decoded): call = decoded
        }
        switch call {
        case .mutate(let mutation, let expect, let expectItem):
            let submission = await onList(ReadingList.Request(mutation, expect: expect, expectItem: expectItem)) { list, request in
                list.submit(request.mutation, expect: request.expect, expectItem: request.expectItem)
            }
            await answer(submission, id: request.id, slot: slot, part: part)
            return Carried(submission: submission)
        case .auth(let token):
            return fill(slot, part: part, Self.reply(request.id, await authenticate(token)))
        default:
            // A read sees exactly the connection's earlier changes, never a later one.
            if let ticket = lastPendingTicket {
                await list.settle(ticket)
                lastPendingTicket = nil
            }
            // A read sent as a notification could only be thrown away: it does nothing.
            guard let id = request.id else { return fill(slot, part: part, .nothing) }
            switch call {
            case .list(let query):
                // Refused by the memory ceiling: the caller fills the slot (a batch that made changes answers it).
                guard let encoded = await listReply(id: id, query: query) else { return Carried(overCeiling: true) }
                adoptCharge(encoded.charged)
                return fill(slot, part: part, .json(encoded.json, revision: encoded.revision))
            case .watch(let since):
                let (outcome, revision, backlogBytes) = await watch(since: since)
                var carried = fill(slot, part: part, Self.reply(id, outcome, revision: revision))
                // The backlog goes out just before the reply: a batch counts it with the reply.
                carried.encodedBytes += backlogBytes
                return carried
            default:
                let (outcome, revision) = await run(call)
                return fill(slot, part: part, Self.reply(id, outcome, revision: revision))
            }
        }
    }

    private func fill(_ slot: ReplyQueue.Slot, part: Int?, _ reply: ReplyQueue.Reply) -> Carried {
        fill(slot, part: part, with: reply)
        return Carried(encodedBytes: reply.heldBytes)
    }

    /// A reply known when its line is read, in a slot of its own.
    private func appendReady(_ reply: ReplyQueue.Reply) {
        replies.append(reply)
        scheduleFlush()
    }

    /// The server's memory ceiling refused this connection a reply (protocol/PROTOCOL.md §10): the reply is dropped,
    /// nothing more it sent is carried out, and after the replies it is owed it gets `closing` (`memory_limit`).
    func refuseForMemory() {
        discardsRequests = true
        closeForMemory()
    }

    /// The reply for `outcome`, or nothing for a notification.
    nonisolated static func reply(_ id: RequestID?, _ outcome: Result<JSONValue, RPCError>, revision: Revision? = nil) -> ReplyQueue.Reply {
        guard let id else { return .nothing }
        return .json(JSONWriter.encode(RPCResponse(id: id, outcome: outcome).json), revision: revision)
    }

    /// About how many bytes the reply to a mutation with `outcome` takes, before it is made: its item as JSON
    /// (`Item.jsonByteCount`, every member) and 128 bytes for the envelope and the revision; 256 for an error or a
    /// reply without an item.
    nonisolated static func estimatedReplyBytes(_ outcome: Result<MutationResult, ReadingListError>?) -> Int {
        guard case .success(let result)? = outcome, let item = result.item else { return 256 }
        return 128 + item.jsonByteCount
    }

    /// The bytes a request's id takes in its reply when it is 1 KiB or more, and so counts against the reply budget
    /// while its request waits; 0 for a smaller one (bounded by the request window).
    nonisolated static func heldIDBytes(_ id: RequestID?) -> Int {
        let bytes: Int
        switch id {
        case .string(let text)?: bytes = text.utf8.count + 2
        case .number(let number)?: bytes = number.text.utf8.count
        case .null?, nil: return 0
        }
        return bytes >= 1024 ? bytes : 0
    }

    /// The methods a connection may call before `auth` when the server has a token.
    nonisolated static let allowedBeforeAuth = ["hello", "ping", "auth"]

    /// The error for any other request before `auth` (protocol/PROTOCOL.md §12).
    nonisolated static let unauthorized = RPCError(.unauthorized, "Unauthorized: authenticate first with {\"method\":\"auth\",\"params\":{\"token\":\"…\"}}")

    /// Checks `token` (protocol/PROTOCOL.md §12): first waits for this peer address's slot when it has been
    /// guessing (`GuessThrottle`), then compares; the third wrong token in a row closes the connection.
    private func authenticate(_ token: String) async -> Result<JSONValue, RPCError> {
        guard let check = tokenCheck, let gate = authGate else { return .success(MethodResult.empty.json) }
        let address = AuthGate.address(ofPeer: connection.peer)
        guard let slot = gate.slot(for: address, now: clock.now) else {
            gate.log("connection \(connection.id) from \(connection.peer): auth refused unchecked, too many attempts from its address", to: log)
            let wait = Int(configuration.guessMaxDelay.components.seconds)
            return .failure(RPCError(
                .unauthorized, "Unauthorized: too many auth attempts from your address; not checked, try again in \(wait) s",
                extra: [("retryAfter", .number(JSONNumber(wait)))]))
        }
        if slot > clock.now {
            if !(await sleep(until: slot)) {
                // The connection is closing (its auth deadline, say): nothing is checked for it any more.
                discardsRequests = true
                return .failure(RPCError(.unauthorized, "Unauthorized: the connection is closing"))
            }
        }
        if check.matches(token) {
            authenticated = true
            failedAuthAttempts = 0
            gate.authenticated(connection.id, address: address)
            return .success(MethodResult.empty.json)
        }
        failedAuthAttempts += 1
        let left = TokenCheck.maxFailures - failedAuthAttempts
        if left <= 0 {
            discardsRequests = true
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
            let revision = await list.unwatch { [feed, id = connection.id] in
                ServingLoop.run(feed, id) { feed, id in feed.remove(id) }
            }
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
        return await withTaskExecutorPreference(globalConcurrentExecutor) { await Self.offTheLoop(encode) }
    }

    /// Runs `work` where a nonisolated async function runs: on the task's preferred executor (the closure given to
    /// `withTaskExecutorPreference` itself would run isolated to the loop, on the loop).
    private nonisolated static func offTheLoop<T: Sendable>(_ work: @Sendable () -> T) async -> T {
        work()
    }

    /// Above this many items a `list` reply is encoded off the event loop.
    nonisolated static let largeListItems = 2000

    /// Above this much work (`ItemQuery.estimatedWork(over:)`, bytes compared) a search runs off the event loop:
    /// about a tenth of a millisecond of a linear search in a release build.
    nonisolated static let loopSearchBytes = 256 << 10

    /// The size from which a `list` reply is charged to the server's memory account within its ceiling as it is
    /// made: 64 KiB. Smaller replies are bounded by the request window and charged when the round's flush settles
    /// the budget, so the common small request costs no atomic operation of its own.
    nonisolated static let checkedReplyBytes = 64 << 10

    /// Starts (or restarts) watching (protocol/PROTOCOL.md §6): the retained changes after `since` are queued as
    /// `changed` notifications, and the reply carries the revision they reach, so they go out before it, in
    /// revision order with everything else this connection is sent; live changes follow.
    /// - Returns: the outcome, the revision the reply carries, and the bytes of backlog queued ahead of it.
    private func watch(since: Revision?) async -> (Result<JSONValue, RPCError>, Revision?, backlogBytes: Int) {
        watchStart = nil
        do {
            let revision = try await list.watch(since: since) { [self] changes, revision in
                // On the list's actor: registered before anything more is published, so no change is missed.
                ServingLoop.run(self, WatchStart(since: since, backlog: changes, revision: revision)) { session, start in
                    session.beginWatch(start)
                }
            }
            guard let start = watchStart else { return (.failure(RPCError(.internalError, "Internal error: the watch was not registered")), revision, 0) }
            watchStart = nil
            if let refusal = start.refusal { return (.failure(refusal), revision, 0) }
            // Encoded here, out of the list's turn; the reply is behind them in the reply queue, and the notification
            // queue puts them ahead of any live change queued meanwhile.
            let lines = start.backlog.map { ($0.revision, ServerNotification.changed($0).line) }
            guard queueBacklog(lines) else {
                // A failed watch leaves an earlier one in place (protocol/PROTOCOL.md §6).
                if !start.wasWatching { feed.remove(connection.id) }
                return (.failure(Self.backlogTooLarge(since: since ?? revision, maxBytes: configuration.maxOutboundBytes, current: revision)), revision, 0)
            }
            return (.success(MethodResult.revision(revision).json), revision, lines.reduce(0) { $0 + $1.1.count })
        } catch {
            // Like a conflict, `6 compacted` carries the current revision: what an earlier watch still owes up to
            // it goes out first, so a client that lists and watches from there gets nothing older afterwards.
            if case .compacted(_, let current) = error { return (.failure(RPCError(error)), current, 0) }
            return (.failure(RPCError(error)), nil, 0)
        }
    }

    /// A watch's start, as the list handed it over inside `watch(since:register:)`.
    struct WatchStart: Sendable {
        let since: Revision?
        let backlog: [RevisionedChange]
        let revision: Revision
        var refusal: RPCError?
        /// Whether the connection was watching already (a re-watch): refusing the backlog then keeps that watch.
        var wasWatching = false
    }

    /// Registers the watch, or refuses it: a backlog that starts below what this connection was already sent would
    /// send a change twice; one that cannot fit would cut the connection off. Checked by a low estimate, before
    /// anything is encoded: this runs in the list's turn.
    private func beginWatch(_ start: WatchStart) {
        var start = start
        let sent = notifications.lastQueuedRevision
        let room = notifications.backlogRoom
        if let since = start.since, since < sent {
            start.refusal = Self.alreadySent(since: since, sent: sent, current: start.revision)
        } else if Self.estimatedBytes(start.backlog, stoppingAbove: room) > room {
            start.refusal = Self.backlogTooLarge(since: start.since ?? start.revision, maxBytes: configuration.maxOutboundBytes, current: start.revision)
        } else {
            start.wasWatching = feed.isWatching(connection.id)
            feed.add(self)
        }
        watchStart = start
    }

    /// `6 compacted` for a `watch` whose `since` is below `sent`, the last change already sent or queued as a
    /// notification on this connection: each change goes to a connection once (protocol/PROTOCOL.md §6).
    nonisolated static func alreadySent(since: Revision, sent: Revision, current: Revision) -> RPCError {
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
    nonisolated static func estimatedBytes(_ changes: [RevisionedChange], stoppingAbove limit: Int = .max) -> Int {
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
    nonisolated static func backlogTooLarge(since: Revision, maxBytes: Int, current: Revision) -> RPCError {
        RPCError(
            .compacted,
            "The changes after revision \(since) are more than this connection may queue at once (half of \(maxBytes) "
                + "bytes, --max-outbound-bytes); list again and watch from there",
            extra: [("revision", .number(JSONNumber(current)))])
    }

}

/// `body(list, argument)` as an actor call to `list` (`Session.onList` off the list's executor).
private func runIsolated<Argument: Sendable, T: Sendable>(
    to list: isolated ReadingList, _ argument: Argument, _ body: @Sendable (isolated ReadingList, Argument) -> T
) async -> T {
    body(list, argument)
}
